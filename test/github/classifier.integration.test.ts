import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RepoConfigSource } from '../../lib/github/repo-config-source.js';
import type { SimJobSpec } from '../sim/index.js';
import { INSTALLATION_ID, startHarness, type Harness } from '../support/harness.js';
import { exitAnnotation, exitLog, failureAnnotation, lostAnnotation, SHUTDOWN_LOG, TEXT } from '../support/evidence.js';

const LOST = lostAnnotation('r');
const EXIT = exitAnnotation(1);
const EXIT_LOG = exitLog(1);

let h: Harness;
let repoSeq = 0;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.log.clear();
  h.sim.clearFaults();
  h.sim.resetRequests();
  h.sim.latencyMs = 0;
});

const newRepo = () => `acme/cls-${++repoSeq}`;

async function decide(jobs: SimJobSpec[], opts: { over?: Parameters<Harness['worker']>[0]; run?: object } = {}) {
  const run = h.sim.addRun({ repo: newRepo(), jobs, ...opts.run });
  h.sim.resetRequests();
  h.log.clear();
  const res = await h.worker(opts.over)(h.sqsEvent([h.message(run.id)]));
  return { run, res, line: h.log.named('decision').at(-1)!, jobs: h.log.named('job') };
}

const logFetches = () => h.sim.count('GET', /\/actions\/jobs\/\d+\/logs$/);

describe('log fallback', () => {
  it.each([403, 404, 410] as const)('annotations answering %i → the job is read from its log', async (status) => {
    const { line, jobs } = await decide([
      { name: 't', conclusion: 'failure', annotations: { status }, log: SHUTDOWN_LOG },
    ]);
    expect(line.decision).toBe('retried');
    expect(jobs[0]).toMatchObject({ verdict: 'infra', source: 'logs' });
  });

  it('a failed job whose annotations match nothing escalates to its log', async () => {
    const { line, jobs } = await decide([{ name: 't', conclusion: 'failure', annotations: [], log: SHUTDOWN_LOG }]);
    expect(line.decision).toBe('retried');
    expect(jobs[0]).toMatchObject({ verdict: 'infra', source: 'annotations+logs' });
  });

  it('a plain cancelled job does not escalate to its log', async () => {
    const { jobs } = await decide([
      { name: 'lost', conclusion: 'failure', annotations: [LOST] },
      { name: 'sibling', conclusion: 'cancelled', annotations: [], log: SHUTDOWN_LOG },
    ]);
    expect(logFetches()).toBe(0);
    expect(jobs.find((j) => j.name === 'sibling')).toMatchObject({ verdict: 'inconclusive' });
  });

  it('a cancelled job whose only annotation is the cancellation echo is read from its log', async () => {
    const { jobs } = await decide([
      {
        name: 'c',
        conclusion: 'cancelled',
        annotations: [failureAnnotation(TEXT.echo)],
        log: SHUTDOWN_LOG,
      },
    ]);
    expect(logFetches()).toBe(1);
    expect(jobs[0]).toMatchObject({ verdict: 'infra', source: 'annotations+logs' });
  });

  it('unreadable everywhere → genuine', async () => {
    const { line, jobs } = await decide([
      { name: 't', conclusion: 'failure', annotations: { status: 404 }, log: { status: 404 } },
    ]);
    expect(line.decision).toBe('genuine_failure');
    expect(jobs[0]).toMatchObject({ verdict: 'genuine', source: 'unreadable' });
  });

  it('a 20 MB log is scanned in its head and tail window, reading no more than the window', async () => {
    const filler = `${'2026-10-02T16:00:00.0000000Z building… '.padEnd(99, '.')}\n`;
    const big = filler.repeat(Math.ceil((20 * 1024 * 1024) / filler.length)) + SHUTDOWN_LOG;
    expect(big.length).toBeGreaterThan(20 * 1024 * 1024);
    const before = h.sim.logBytesServed;
    const window = 2 * 1024 * 1024;
    const { jobs } = await decide([{ name: 't', conclusion: 'failure', annotations: [], log: big }], {
      over: { logWindowBytes: window },
    });
    expect(jobs[0]).toMatchObject({ verdict: 'infra' });
    expect(h.sim.logBytesServed - before).toBeLessThanOrEqual(window);
  });

  it('a redirect to a host outside the allow-list is refused and logged', async () => {
    const { jobs } = await decide([{ name: 't', conclusion: 'failure', annotations: [], log: SHUTDOWN_LOG }], {
      over: { logHosts: ['pipelines.actions.githubusercontent.com'] },
    });
    expect(jobs[0]).toMatchObject({ verdict: 'genuine' });
    expect(h.log.named('job log redirect refused: host not in the allow-list')).toHaveLength(1);
    expect(h.sim.requests.some((r) => r.path.startsWith('/_logs'))).toBe(false);
  });
});

describe('bounds', () => {
  it('a 40-shard matrix needing per-job calls keeps peak concurrency ≤ 8', async () => {
    h.sim.latencyMs = 15;
    const jobs = Array.from({ length: 40 }, (_, i) => ({
      name: `shard-${i}`,
      conclusion: 'failure' as const,
      annotations: { status: 403 as const },
      log: SHUTDOWN_LOG,
    }));
    const { line } = await decide(jobs);
    expect(line.decision).toBe('retried');
    expect(logFetches()).toBe(40);
    expect(h.sim.peakInFlight).toBeGreaterThan(1);
    expect(h.sim.peakInFlight).toBeLessThanOrEqual(8);
  });

  it('stops at the first genuine verdict and logs how many candidates were left unexamined', async () => {
    h.sim.latencyMs = 5;
    const jobs = Array.from({ length: 40 }, (_, i) => ({
      name: `shard-${i}`,
      conclusion: 'failure' as const,
      annotations: { status: 403 as const },
      log: i === 0 ? EXIT_LOG : SHUTDOWN_LOG,
    }));
    const { line } = await decide(jobs);
    expect(line.decision).toBe('genuine_failure');
    expect(Number(line.unexamined)).toBeGreaterThan(0);
    expect(logFetches()).toBeLessThan(40);
  });
});

describe('GitHub cost', () => {
  /**
   * Every request a decision sent on the installation's behalf, configuration reads and 304s
   * included; the App's own (its JWT: token exchanges, its delivery log) counted apart.
   */
  const sent = () => h.sim.requests.filter((r) => r.as !== 'app');
  /** The App's requests of a decision: a branch run's one read of the delivery log, beside the listing. */
  const appSent = () => h.sim.appRequests.filter((r) => !r.path.includes('access_tokens')).map((r) => r.path);
  /** Requests that start within 50 ms of each other share a round trip (the simulator answers after 100 ms). */
  const roundTrips = () => {
    const starts = sent()
      .map((r) => r.at)
      .sort((a, b) => a - b);
    return starts.filter((at, i) => i === 0 || at - starts[i - 1]! >= 50).length;
  };
  const lostJobs = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ name: `job-${i}`, conclusion: 'failure' as const, annotations: [LOST] }));

  it.each([
    [1, 3],
    [10, 3],
    [60, 3],
    [199, 4],
  ])(
    'a push run with %i failed jobs and one passed, in a repository without .github/reprise.yml, costs %i installation requests once warm (configuration reads counted), and the App one read of its delivery log, counted apart',
    async (n, cost) => {
      const repo = newRepo();
      const configSource = new RepoConfigSource();
      const warm = h.sim.addRun({ repo, jobs: [{ name: 'x', conclusion: 'failure', annotations: [EXIT] }] });
      await h.worker({ configSource })(h.sqsEvent([h.message(warm.id)]));

      const run = h.sim.addRun({ repo, event: 'push', jobs: [{ name: 'ok', conclusion: 'success' }, ...lostJobs(n)] });
      h.sim.resetRequests();
      h.log.clear();
      await h.worker({ configSource })(h.sqsEvent([h.message(run.id)]));
      expect(h.log.named('decision')[0]).toMatchObject({ decision: 'retried', requests: sent().length });
      expect(sent().length).toBe(cost);
      expect(h.log.named('decision')[0]).toMatchObject({ app_requests: 1 });
      expect(appSent()).toEqual(['/app/hook/deliveries']);
      expect(h.sim.count('GET', /\/contents\//)).toBe(0);
    },
  );

  it('the common path at 100 ms a request: 3 installation requests, 3 round trips once warm, the App’s delivery-log read in the listing’s round trip; the first decision reads the configuration beside the job listing', async () => {
    const repo = newRepo();
    const configSource = new RepoConfigSource();
    h.sim.latencyMs = 100;
    const first = h.sim.addRun({ repo, jobs: lostJobs(1) });
    h.sim.resetRequests();
    await h.worker({ configSource })(h.sqsEvent([h.message(first.id)]));
    // Repository 404, owner's .github 404 (in turn), the listing beside them, GraphQL, the re-run.
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'retried', requests: 5 });
    expect(roundTrips()).toBe(4);
    expect(h.sim.peakInFlight).toBeGreaterThanOrEqual(2);

    const run = h.sim.addRun({ repo, jobs: lostJobs(1) });
    h.sim.resetRequests();
    await h.worker({ configSource })(h.sqsEvent([h.message(run.id)]));
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'retried', requests: 3, app_requests: 1 });
    expect(roundTrips()).toBe(3);
    // The App's read shares the listing's round trip: the POST is still the third.
    const starts = (rs: typeof h.sim.requests) => rs.map((r) => r.at);
    const [listedAt] = starts(sent());
    expect(Math.abs(h.sim.appRequests.find((r) => r.path === '/app/hook/deliveries')!.at - listedAt!)).toBeLessThan(50);
  });

  it('a repository with its own file: the 304 of the configuration read is counted, and shares its round trip with the listing', async () => {
    const repo = newRepo();
    h.sim.setRepoFile(repo, '.github/reprise.yml', 'max_attempts: 3\n');
    const configSource = new RepoConfigSource();
    const warm = h.sim.addRun({ repo, jobs: [{ name: 'x', conclusion: 'failure', annotations: [EXIT] }] });
    await h.worker({ configSource })(h.sqsEvent([h.message(warm.id)]));
    h.sim.latencyMs = 100;
    const run = h.sim.addRun({ repo, jobs: lostJobs(1) });
    h.sim.resetRequests();
    await h.worker({ configSource })(h.sqsEvent([h.message(run.id)]));
    expect(h.sim.requests.some((r) => r.status === 304)).toBe(true);
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'retried', requests: 4, app_requests: 1 });
    expect(sent()).toHaveLength(4);
    expect(roundTrips()).toBe(3);
  });

  it('the annotations of a 250-job matrix come from one GraphQL query', async () => {
    const jobs = Array.from({ length: 250 }, (_, i) => ({
      name: `m-${i}`,
      conclusion: 'failure' as const,
      annotations: [LOST],
    }));
    const { line } = await decide(jobs);
    expect(line.decision).toBe('retried');
    expect(h.sim.count('POST', /^\/graphql$/)).toBe(1);
    expect(h.sim.count('GET', /\/annotations$/)).toBe(0);
  });

  it('GraphQL failing falls back to REST per job with the same verdicts', async () => {
    const jobs: SimJobSpec[] = [
      { name: 'a', conclusion: 'failure', annotations: [LOST] },
      { name: 'b', conclusion: 'cancelled', annotations: [] },
      { name: 'c', conclusion: 'failure', annotations: [{ level: 'warning', message: 'deprecated' }, LOST] },
    ];
    const withGraphql = await decide(jobs);
    h.sim.injectFault({ path: /^\/graphql$/, status: 502 });
    const withRest = await decide(jobs);
    const verdicts = (js: typeof withRest.jobs) => js.map((j) => [j.name, j.verdict]).sort();
    expect(verdicts(withRest.jobs)).toEqual(verdicts(withGraphql.jobs));
    expect(withRest.line.decision).toBe(withGraphql.line.decision);
    expect(h.sim.count('GET', /\/check-runs\/\d+\/annotations$/)).toBe(3);
  });
});

describe('re-run answers', () => {
  it.each([403, 404, 409, 422])('%i on rerun-failed-jobs → rerun_rejected with GitHub’s message', async (status) => {
    h.sim.injectFault({
      method: 'POST',
      path: /rerun-failed-jobs$/,
      status,
      message: 'Unable to retry this workflow run.',
    });
    const { line } = await decide([{ name: 't', conclusion: 'failure', annotations: [LOST] }]);
    expect(line).toMatchObject({ decision: 'rerun_rejected', level: 'warn' });
    expect(String(line.reason)).toContain('Unable to retry this workflow run.');
    expect(String(line.reason)).toContain('already re-run');
  });

  it('a 500 on the re-run call is not a decision: the message is retried', async () => {
    h.sim.injectFault({ method: 'POST', path: /rerun-failed-jobs$/, status: 500, times: 10 });
    const { res } = await decide([{ name: 't', conclusion: 'failure', annotations: [LOST] }]);
    expect(res.batchItemFailures).toHaveLength(1);
  });

  it('cancelled-only, one candidate: refused rerun-failed-jobs falls back to re-running that job', async () => {
    h.sim.rerunFailedJobsIncludesCancelled = false;
    const { line } = await decide([{ name: 'c', conclusion: 'cancelled', annotations: [LOST] }]);
    expect(line.decision).toBe('retried');
    expect(h.sim.count('POST', /\/actions\/jobs\/\d+\/rerun$/)).toBe(1);
  });

  it('cancelled-only, several candidates, rerun_all_fallback on → the whole run (retried_all)', async () => {
    h.sim.rerunFailedJobsIncludesCancelled = false;
    const { line } = await decide(
      [
        { name: 'c1', conclusion: 'cancelled', annotations: [LOST] },
        { name: 'c2', conclusion: 'cancelled', annotations: [LOST] },
      ],
      { over: { defaults: { rerunAllFallback: true } } },
    );
    expect(line.decision).toBe('retried_all');
    expect(h.sim.count('POST', /\/actions\/runs\/\d+\/rerun$/)).toBe(1);
  });

  it('cancelled-only, several candidates, no fallback → rerun_rejected saying GitHub may see no failed job', async () => {
    h.sim.rerunFailedJobsIncludesCancelled = false;
    const { line } = await decide([
      { name: 'c1', conclusion: 'cancelled', annotations: [LOST] },
      { name: 'c2', conclusion: 'cancelled', annotations: [LOST] },
    ]);
    expect(line.decision).toBe('rerun_rejected');
    expect(String(line.reason)).toContain('every candidate was cancelled');
  });
});

describe('staleness and races', () => {
  it('a pull_request run whose PR is closed is stale', async () => {
    const repo = newRepo();
    h.sim.addPullRequest(repo, { number: 7, state: 'closed', headSha: 'a'.repeat(40) });
    const run = h.sim.addRun({
      repo,
      event: 'pull_request',
      headSha: 'a'.repeat(40),
      pullRequests: [7],
      jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }],
    });
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'stale' });
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(0);
  });

  it('a pull_request run with a newer run of the same workflow and branch is stale', async () => {
    const repo = newRepo();
    const old = h.sim.addRun({
      repo,
      event: 'pull_request',
      headBranch: 'feature',
      createdAt: new Date(Date.now() - 3_600_000).toISOString(),
      jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }],
    });
    h.sim.addRun({ repo, event: 'pull_request', headBranch: 'feature', jobs: [{ name: 't', conclusion: 'success' }] });
    await h.worker()(h.sqsEvent([h.message(old.id)]));
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'stale' });
  });

  it('a run whose attempt moved before the call is a duplicate: no call', async () => {
    const run = h.sim.addRun({ repo: newRepo(), jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }] });
    const message = h.message(run.id);
    await h.worker()(h.sqsEvent([message])); // re-runs: attempt 2
    const again = { ...message, deliveryId: 'another-delivery' };
    await h.ledger.attempts.release(again, 'nobody'); // nothing to release: the ledger still holds attempt 1
    const res = await h.worker()(h.sqsEvent([{ ...again, runAttempt: 1 }]));
    expect(res.batchItemFailures).toEqual([]);
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(1);
  });
});

describe('configuration', () => {
  it('a malformed .github/reprise.yml that keeps no narrowing key: the run is left alone, the error reported', async () => {
    const repo = newRepo();
    h.sim.setRepoFile(repo, '.github/reprise.yml', 'max_attempts: [not, a, number\n');
    const run = h.sim.addRun({ repo, jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }] });
    const res = await h.worker()(h.sqsEvent([h.message(run.id)]));
    expect(res.batchItemFailures).toEqual([]);
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'ignored' });
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(0);
    expect(h.log.named('configuration error; failing closed')[0]?.error).toMatch(/reprise\.yml/);
  });

  it('an invalid extra pattern is reported as a configuration error', async () => {
    const repo = newRepo();
    h.sim.setRepoFile(repo, '.github/reprise.yml', 'extra_patterns: |\n  runner (vanished\n');
    const run = h.sim.addRun({ repo, jobs: [{ name: 't', conclusion: 'failure', annotations: [EXIT] }] });
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    expect(h.log.named('configuration error; failing closed')[0]?.error).toMatch(/invalid regular expression/);
  });

  it('extra patterns from the repository make a custom text infrastructure', async () => {
    const repo = newRepo();
    h.sim.setRepoFile(
      repo,
      '.github/reprise.yml',
      'extra_patterns: |\n  # our pod reaper\n  runner pod .* was evicted\n',
    );
    const run = h.sim.addRun({
      repo,
      jobs: [
        {
          name: 't',
          conclusion: 'failure',
          annotations: [{ level: 'failure', message: 'Runner pod ci-7f9 was evicted' }],
        },
      ],
    });
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'retried' });
  });

  it('the owner’s .github repository is the fallback', async () => {
    h.sim.setRepoFile('acme/.github', '.github/reprise.yml', 'dry_run: true\n');
    const { line } = await decide([{ name: 't', conclusion: 'failure', annotations: [LOST] }]);
    h.sim.setRepoFile('acme/.github', '.github/reprise.yml', null);
    expect(line.decision).toBe('dry_run');
  });

  it('report: check_run creates a reprise check run with the job table', async () => {
    const repo = newRepo();
    h.sim.setRepoFile(repo, '.github/reprise.yml', 'report: check_run\n');
    const run = h.sim.addRun({
      repo,
      jobs: [{ name: 'shard-1', conclusion: 'failure', runnerName: 'spot-1', annotations: [LOST] }],
    });
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    const check = h.sim.checkRuns.find((c) => c.repo === repo);
    expect(check).toMatchObject({ name: 'reprise', headSha: run.headSha });
    expect(JSON.stringify(check)).toContain('shard-1');
  });
});

describe('the run read off its latest jobs', () => {
  const lostRun = (onRerun: 'success' | 'same' = 'success') =>
    h.sim.addRun({ repo: newRepo(), onRerun, jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }] });
  const runReads = () => h.sim.count('GET', /\/actions\/runs\/\d+$/);

  /** A person presses "Re-run failed jobs" (or "Re-run all jobs") in GitHub, through the API. */
  async function personReruns(runId: number, what: 'rerun-failed-jobs' | 'rerun'): Promise<void> {
    const run = h.sim.run(runId);
    const res = await fetch(`${h.sim.url}/repos/${run.repo}/actions/runs/${runId}/${what}`, {
      method: 'POST',
      headers: { authorization: `token ${h.sim.issueToken(INSTALLATION_ID)}`, accept: 'application/vnd.github+json' },
    });
    expect(res.status).toBe(201);
  }

  /** The Actions and GraphQL calls a decision made, ids elided; the configuration reads and the App's own requests left out. */
  const calls = () =>
    h.sim.requests
      .filter((r) => r.as !== 'app' && !/\/contents\//.test(r.path))
      .map((r) => `${r.method} ${r.path.replace(/^\/repos\/[^/]+\/[^/]+/, '').replace(/\d+/g, 'N')}`);

  it('the common path lists the latest jobs once and never reads the run: 3 calls besides the configuration reads', async () => {
    const { line } = await decide([{ name: 't', conclusion: 'failure', annotations: [LOST] }]);
    expect(line).toMatchObject({ decision: 'retried' });
    expect(calls()).toEqual(['GET /actions/runs/N/jobs', 'POST /graphql', 'POST /actions/runs/N/rerun-failed-jobs']);
    expect(h.sim.appRequests.map((r) => `${r.method} ${r.path}`)).toContain('GET /app/hook/deliveries');
  });

  it.each(['rerun-failed-jobs', 'rerun'] as const)(
    'a person ran %s after the webhook and the new attempt failed too: duplicate, never a re-run on the older attempt’s evidence',
    async (what) => {
      const run = lostRun('same');
      const message = h.message(run.id);
      await personReruns(run.id, what);
      expect(h.sim.run(run.id)).toMatchObject({ runAttempt: 2, status: 'completed', conclusion: 'failure' });
      h.sim.resetRequests();
      await h.worker()(h.sqsEvent([message]));
      expect(h.log.named('decision').at(-1)).toMatchObject({
        decision: 'duplicate',
        reason: 'attempt 1 was already re-run: the run is at attempt 2',
      });
      expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(1);
      expect(runReads()).toBe(0);
    },
  );

  it('a person’s re-run still running when the webhook is decided: duplicate, no re-run call', async () => {
    const run = lostRun();
    const message = h.message(run.id);
    h.sim.run(run.id).onRerun = () => ({ conclusion: null, status: 'in_progress' });
    await personReruns(run.id, 'rerun-failed-jobs');
    h.sim.resetRequests();
    await h.worker()(h.sqsEvent([message]));
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'duplicate' });
    expect(h.sim.count('POST', /rerun/)).toBe(0);
  });

  it('the window the listing cannot see (the run is running again before its new jobs are listed): GitHub refuses the re-run with 403 "already running", recorded as rerun_rejected', async () => {
    const run = lostRun();
    h.sim.run(run.id).status = 'in_progress';
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'rerun_rejected' });
    expect(String(h.log.named('decision').at(-1)?.reason)).toContain('This workflow is already running');
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(0);
  });

  it('a message without the run’s creation time (enqueued before it was carried) reads the run and the attempt’s jobs, and decides the same', async () => {
    const run = lostRun();
    const { createdAt: _dropped, ...older } = h.message(run.id);
    h.sim.resetRequests();
    await h.worker()(h.sqsEvent([older]));
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'retried' });
    expect(calls()).toEqual([
      'GET /actions/runs/N',
      'GET /actions/runs/N/attempts/N/jobs',
      'POST /graphql',
      'POST /actions/runs/N/rerun-failed-jobs',
    ]);
  });

  it('a run with no jobs listed is read before anything is decided: no_candidate_jobs', async () => {
    const run = h.sim.addRun({ repo: newRepo(), conclusion: 'failure', jobs: [] });
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'no_candidate_jobs' });
    expect(calls()).toEqual(['GET /actions/runs/N/jobs', 'GET /actions/runs/N', 'GET /actions/runs/N/attempts/N/jobs']);
  });
});

describe('rate limits', () => {
  it('a rate-limited message goes back to the queue with a delay instead of failing the batch', async () => {
    const deferred: number[] = [];
    const run = h.sim.addRun({ repo: newRepo(), jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }] });
    const other = h.sim.addRun({ repo: newRepo(), jobs: [{ name: 't', conclusion: 'failure', annotations: [EXIT] }] });
    h.sim.injectFault({
      method: 'GET',
      path: new RegExp(`/actions/runs/${run.id}/jobs$`),
      status: 403,
      retryAfter: 120,
      message: 'You have exceeded a secondary rate limit',
      times: 2,
    });
    const res = await h.worker({ defer: async (_r, s) => void deferred.push(s) })(
      h.sqsEvent([h.message(run.id), h.message(other.id)]),
    );
    expect(res.batchItemFailures).toHaveLength(1);
    expect(deferred).toEqual([120]);
    expect(h.metrics.get('RateLimited')).toBeGreaterThan(0);
    expect(h.log.named('decision').map((l) => l.run_id)).toContain(other.id);
    // The claim was given back, so the retry decides it.
    h.sim.clearFaults();
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(1);
  });
});
