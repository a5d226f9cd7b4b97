import { simAppPrivateKey } from './app-key.js';
import { IdSource, Rng, gitBlobSha, iso, nodeId } from './ids.js';
import { SimLease } from './lease.js';
import { DEFAULT_RUNNER_GROUP, SimRun, buildJob, deriveConclusion, type JobFactory } from './runs.js';
import type {
  SimApp,
  SimCheckRun,
  SimDelivery,
  SimEnqueueRequest,
  SimInstallation,
  SimJob,
  SimPullRequest,
  SimRepo,
  SimRerunRecord,
  SimRerunRequest,
  SimHistorySpec,
  SimRunSpec,
} from './types.js';

const DEFAULT_PERMISSIONS = {
  actions: 'write',
  checks: 'write',
  contents: 'read',
  metadata: 'read',
  pull_requests: 'read',
};

/** A pull request as a test describes it; unset fields keep their value (or the default). */
export interface SimPullRequestSpec {
  number: number;
  state: 'open' | 'closed';
  headSha: string;
  headRef?: string;
  inMergeQueue?: boolean;
  mergeable?: boolean;
}

export interface IssuedToken {
  installationId: number | null;
  expiresAt: number;
  permissions: Record<string, string>;
}

/** The in-memory state behind every endpoint. */
export class SimModel implements JobFactory {
  readonly rng = new Rng(1);
  /**
   * Whether job listings answer a matching `If-None-Match` with 304, as GitHub does. Off only
   * as a control: GitHub as if the condition had not been sent.
   */
  honoursIfNoneMatch = true;
  readonly ids = new IdSource({
    owner: 90_000_001,
    repo: 700_000_001,
    workflow: 80_000_001,
    run: 12_000_000_001,
    job: 34_000_000_001,
    checkSuite: 31_000_000_001,
    pr: 2_100_000_001,
    delivery: 95_000_000_001,
    runner: 101,
  });
  readonly repos = new Map<string, SimRepo>();
  readonly owners = new Map<string, number>();
  readonly runs = new Map<number, SimRun>();
  readonly jobs = new Map<number, { job: SimJob; run: SimRun }>();
  readonly nodes = new Map<string, number>();
  readonly runners = new Map<string, number>();
  /** Runner group ids by name; every organisation's `Default` group is 1, as on GitHub. */
  readonly runnerGroups = new Map<string, number>([[DEFAULT_RUNNER_GROUP, 1]]);
  readonly workflows = new Map<string, number>();
  readonly runNumbers = new Map<number, number>();
  readonly pulls = new Map<string, SimPullRequest>();
  readonly files = new Map<string, { content: string; sha: string; encoded: string }>();
  readonly installations = new Map<number, SimInstallation>();
  readonly tokens = new Map<string, IssuedToken>();
  /** Tokens accepted as they are, like a personal access token or GITHUB_TOKEN. */
  readonly staticTokens = new Set<string>();
  readonly deliveries: SimDelivery[] = [];
  readonly manifestCodes = new Map<string, SimApp>();
  readonly checkRuns: SimCheckRun[] = [];
  /** Commits reprise may read over GraphQL (merge groups' commits), by sha: their parents. */
  readonly commits = new Map<string, { parents: string[] }>();
  /** Every `enqueuePullRequest` received, accepted or refused, in order of arrival. */
  readonly enqueueRequests: SimEnqueueRequest[] = [];
  /** Re-runs GitHub accepted (each started a new attempt). */
  readonly reruns: SimRerunRecord[] = [];
  /** Every re-run POST received, accepted or not, in order of arrival. */
  readonly rerunRequests: SimRerunRequest[] = [];
  /** Every cancel and force-cancel POST received, accepted or not, in order of arrival. */
  readonly cancelRequests: { kind: 'cancel' | 'force-cancel'; runId: number; status: number; at: number }[] = [];
  readonly hookConfig = { url: 'https://reprise.example.com/webhook', content_type: 'json', insecure_ssl: '0' };
  rerunFailedJobsIncludesCancelled = false;
  /** Jobs' leases, dead runners and cancels (lease.ts). */
  readonly lease = new SimLease(this);
  /** Told about every attempt a re-run starts, e.g. to deliver the next workflow_run event. */
  onNewAttempt: ((run: SimRun) => void) | null = null;
  app: SimApp = {
    id: 1_234_567,
    slug: 'reprise',
    name: 'reprise',
    owner: 'acme',
    pem: simAppPrivateKey(),
    webhookSecret: 'simulated-webhook-secret',
    clientId: 'Iv23liSimulated00001',
    clientSecret: 'simulated-client-secret',
    htmlUrl: 'https://github.com/apps/reprise',
  };

  /** Every App GitHub knows here: the default one and each created from a manifest. */
  readonly apps: SimApp[] = [this.app];

  /** The App a JWT's `iss` names, by its id or its client id. */
  appByIssuer(iss: unknown): SimApp | undefined {
    if (typeof iss !== 'string' && typeof iss !== 'number') return undefined;
    return this.apps.find((a) => String(a.id) === String(iss) || a.clientId === iss);
  }

  nextId(kind: string): number {
    return this.ids.next(kind);
  }

  ownerId(owner: string): number {
    let id = this.owners.get(owner.toLowerCase());
    if (id === undefined) {
      id = this.ids.next('owner');
      this.owners.set(owner.toLowerCase(), id);
    }
    return id;
  }

  repo(fullName: string): SimRepo {
    const key = fullName.toLowerCase();
    const found = this.repos.get(key);
    if (found) return found;
    const [owner, name] = fullName.split('/');
    if (!owner || !name) throw new Error(`repo must be "owner/name", got "${fullName}"`);
    const id = this.ids.next('repo');
    const repo: SimRepo = {
      id,
      nodeId: nodeId('R', id),
      owner,
      ownerId: this.ownerId(owner),
      name,
      fullName,
      defaultBranch: 'main',
    };
    this.repos.set(key, repo);
    return repo;
  }

  findRepo(owner: string, name: string): SimRepo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  repoId(fullName: string): number {
    return this.repo(fullName).id;
  }

  defaultRunnerName(): string {
    return `runner-${this.rng.hex(8)}`;
  }

  runnerId(name: string): number {
    let id = this.runners.get(name);
    if (id === undefined) {
      id = this.ids.next('runner');
      this.runners.set(name, id);
    }
    return id;
  }

  runnerGroupId(name: string): number {
    let id = this.runnerGroups.get(name);
    if (id === undefined) {
      id = this.runnerGroups.size + 1;
      this.runnerGroups.set(name, id);
    }
    return id;
  }

  indexJob(job: SimJob, run: SimRun): void {
    this.jobs.set(job.id, { job, run });
    this.nodes.set(job.nodeId, job.id);
  }

  addRun(spec: SimRunSpec): SimRun {
    // GitHub has runs without jobs (a workflow file error fails the run before any job starts).
    if (spec.jobs.length === 0 && !spec.conclusion) throw new Error('a run without jobs needs its conclusion');
    const repo = this.repo(spec.repo);
    const id = spec.id ?? this.ids.next('run');
    if (this.runs.has(id)) throw new Error(`run ${id} already exists`);
    this.ids.bump('run', id);
    const workflowPath = spec.workflowPath ?? '.github/workflows/ci.yml';
    const wfKey = `${repo.fullName.toLowerCase()}:${workflowPath}`;
    const workflowId = spec.workflowId ?? this.workflows.get(wfKey) ?? this.ids.next('workflow');
    this.workflows.set(wfKey, workflowId);
    const runNumber = (this.runNumbers.get(workflowId) ?? 0) + 1;
    this.runNumbers.set(workflowId, runNumber);
    const now = Date.now();
    const createdAt = spec.createdAt ?? iso(now - 15 * 60_000);
    const headSha = spec.headSha ?? this.rng.hex(40);
    // A branch of the run's own by default: each run is its branch's head, superseded by none.
    const headBranch = spec.headBranch ?? `branch-${runNumber}`;
    const run = new SimRun(
      id,
      repo.fullName,
      nodeId('WFR', repo.id, id),
      spec.workflowName ?? 'CI',
      workflowPath,
      workflowId,
      runNumber,
      this.ids.next('checkSuite'),
      spec.event ?? 'push',
      headSha,
      headBranch,
      createdAt,
      spec.pullRequests ?? [],
      spec.onRerun ?? 'success',
    );
    const attempts = spec.runAttempt ?? 1;
    const span = Math.max(60_000, now - 60_000 - Date.parse(createdAt));
    for (let n = 1; n <= attempts; n++) {
      const startedMs = Date.parse(createdAt) + ((n - 1) * span) / attempts;
      const startedAt = iso(startedMs);
      const updatedAt = n === attempts ? iso(Math.max(startedMs, now - 60_000)) : iso(startedMs + span / attempts / 2);
      // Earlier attempts are what led to this one: the same jobs, all failed.
      const specs = n === attempts ? spec.jobs : spec.jobs.map((j) => ({ ...j, conclusion: 'failure' as const }));
      const at = { repo: repo.fullName, runId: id, attempt: n, createdAt: startedAt, completedAt: updatedAt };
      const jobs = specs.map((j) => buildJob(this, n === attempts ? j : { ...j, status: 'completed' }, at));
      const derived = deriveConclusion(jobs);
      const status = n < attempts ? 'completed' : (spec.status ?? (derived === null ? 'in_progress' : 'completed'));
      const conclusion =
        status !== 'completed' ? null : n === attempts && spec.conclusion !== undefined ? spec.conclusion : derived;
      run.attempts.push({
        number: n,
        status,
        conclusion,
        jobs,
        executed: jobs.map((j) => j.name),
        startedAt,
        updatedAt,
      });
      for (const job of jobs) this.indexJob(job, run);
    }
    this.runs.set(id, run);
    for (const number of run.pullRequests) {
      if (!this.pulls.has(`${repo.fullName.toLowerCase()}#${number}`)) {
        this.addPullRequest(repo.fullName, { number, state: 'open', headSha, headRef: headBranch });
      }
    }
    return run;
  }

  /**
   * A finished run and each of its attempts as they happened: attempt 1 ran every job; each later
   * attempt ran again the jobs it names and kept the others, as a re-run of failed jobs does.
   */
  addRunHistory(spec: SimHistorySpec): SimRun {
    const [first, ...later] = spec.attempts;
    if (!first) throw new Error('a run history needs at least one attempt');
    const timed = (a: SimHistorySpec['attempts'][number]) =>
      a.jobs.map((j) => ({ startedAt: a.startedAt, completedAt: a.completedAt, ...j }));
    const run = this.addRun({
      repo: spec.repo,
      ...(spec.workflowName !== undefined && { workflowName: spec.workflowName }),
      ...(spec.workflowPath !== undefined && { workflowPath: spec.workflowPath }),
      ...(spec.event !== undefined && { event: spec.event }),
      ...(spec.headBranch !== undefined && { headBranch: spec.headBranch }),
      ...(spec.headSha !== undefined && { headSha: spec.headSha }),
      ...(spec.pullRequests !== undefined && { pullRequests: spec.pullRequests }),
      createdAt: first.startedAt,
      jobs: timed(first),
    });
    const one = run.latest;
    Object.assign(one, { startedAt: first.startedAt, updatedAt: first.completedAt, status: 'completed' });
    if (first.actor) one.actor = first.actor;
    one.conclusion = deriveConclusion(one.jobs) ?? 'failure';
    for (const a of later) {
      const before = run.latest;
      const n = before.number + 1;
      const at = { repo: run.repo, runId: run.id, attempt: n, createdAt: a.startedAt, completedAt: a.completedAt };
      const again = new Map(timed(a).map((j) => [j.name, j]));
      const jobs = before.jobs.map((j) => {
        const next = again.get(j.name);
        return next ? buildJob(this, { labels: j.labels, needs: j.needs, ...next }, at) : j;
      });
      for (const j of jobs) if (j.runAttempt === n) this.indexJob(j, run);
      run.attempts.push({
        number: n,
        ...(a.actor && { actor: a.actor }),
        status: 'completed',
        conclusion: deriveConclusion(jobs) ?? 'failure',
        jobs,
        executed: jobs.filter((j) => j.runAttempt === n).map((j) => j.name),
        startedAt: a.startedAt,
        updatedAt: a.completedAt,
      });
    }
    return run;
  }

  run(id: number): SimRun {
    const run = this.runs.get(id);
    if (!run) throw new Error(`no run ${id}`);
    return run;
  }

  addPullRequest(repo: string, pr: SimPullRequestSpec): void {
    const r = this.repo(repo);
    const key = `${r.fullName.toLowerCase()}#${pr.number}`;
    const existing = this.pulls.get(key);
    const id = existing?.id ?? this.ids.next('pr');
    this.pulls.set(key, {
      id,
      nodeId: existing?.nodeId ?? nodeId('PR', r.id, id),
      repo: r.fullName,
      number: pr.number,
      state: pr.state,
      headSha: pr.headSha,
      headRef: pr.headRef ?? `feature/pr-${pr.number}`,
      baseRef: r.defaultBranch,
      createdAt: existing?.createdAt ?? iso(Date.now() - 3_600_000),
      inMergeQueue: pr.inMergeQueue ?? existing?.inMergeQueue ?? false,
      mergeable: pr.mergeable ?? existing?.mergeable ?? true,
    });
  }

  pull(repo: SimRepo, number: number): SimPullRequest | undefined {
    return this.pulls.get(`${repo.fullName.toLowerCase()}#${number}`);
  }

  /** A file's content as GitHub's contents API sends it is encoded once, when the file is set. */
  setRepoFile(repo: string, path: string, content: string | null): void {
    const key = `${this.repo(repo).fullName.toLowerCase()}:${path}`;
    if (content === null) this.files.delete(key);
    else this.files.set(key, { content, sha: gitBlobSha(content), encoded: wrappedBase64(content) });
  }

  file(repo: SimRepo, path: string): { content: string; sha: string; encoded: string } | undefined {
    return this.files.get(`${repo.fullName.toLowerCase()}:${path}`);
  }

  addInstallation(opts: {
    id: number;
    account: string;
    repositorySelection?: 'all' | 'selected';
    repos?: string[];
    permissions?: Record<string, string>;
  }): void {
    this.installations.set(opts.id, {
      id: opts.id,
      account: opts.account,
      accountId: this.ownerId(opts.account),
      repositorySelection: opts.repositorySelection ?? (opts.repos ? 'selected' : 'all'),
      repos: opts.repos ?? [],
      permissions: opts.permissions ?? { ...DEFAULT_PERMISSIONS },
      events: ['check_run', 'workflow_job', 'workflow_run'],
      createdAt: iso(Date.now() - 30 * 86_400_000),
    });
  }

  /** Whether an installation's token may see a repository (GitHub answers 404 when not). */
  installationCovers(inst: SimInstallation, owner: string, name: string): boolean {
    if (inst.account.toLowerCase() !== owner.toLowerCase()) return false;
    if (inst.repositorySelection === 'all') return true;
    const full = `${owner}/${name}`.toLowerCase();
    return inst.repos.some((r) => (r.includes('/') ? r : `${inst.account}/${r}`).toLowerCase() === full);
  }

  issueToken(installationId: number | null, permissions: Record<string, string>, ttlMs = 3_600_000): string {
    const token = `ghs_${this.rng.alnum(36)}`;
    this.tokens.set(token, { installationId, expiresAt: Date.now() + ttlMs, permissions });
    return token;
  }

  addDelivery(d: {
    id?: number;
    guid: string;
    event: string;
    action?: string;
    statusCode: number;
    deliveredAt?: string;
    redelivery?: boolean;
    installationId?: number;
    repositoryId?: number;
    duration?: number;
  }): SimDelivery {
    const id = d.id ?? this.ids.next('delivery');
    this.ids.bump('delivery', id);
    const delivery: SimDelivery = {
      id,
      guid: d.guid,
      event: d.event,
      action: d.action ?? null,
      statusCode: d.statusCode,
      deliveredAt: d.deliveredAt ?? iso(Date.now()),
      redelivery: d.redelivery ?? false,
      installationId: d.installationId ?? null,
      repositoryId: d.repositoryId ?? null,
      duration: d.duration ?? 0.12,
    };
    this.deliveries.push(delivery);
    return delivery;
  }
}

/** Base64 wrapped at 60 characters, as GitHub's contents API sends a file. */
function wrappedBase64(content: string): string {
  const encoded = Buffer.from(content, 'utf8').toString('base64');
  return (encoded.match(/.{1,60}/g) ?? []).join('\n') + '\n';
}
