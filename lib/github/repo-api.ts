import type { AnnotationEvidence, LogEvidence } from '../classify/classify-job.js';
import { SCAN_LIMITS } from '../classify/scan-budget.js';
import {
  IncompleteListingError,
  NotFoundError,
  RateLimitedError,
  RequestTimeoutError,
  TransientError,
} from '../errors.js';
import type { Annotation, JobFacts, RerunAnswer, RerunCall, RunFacts } from '../model.js';
import type { GitHubClient, GitHubClients, RequestTimeout } from './client.js';
import { meteredRequest, ONE_SHOT } from './client.js';
import { type JobLogOptions, readLogAt } from './job-log.js';

interface RestJob {
  id: number;
  node_id: string;
  name: string;
  status: string;
  conclusion: string | null;
  runner_name: string | null;
  started_at?: string | null;
  completed_at: string | null;
  run_attempt?: number;
}

const toJob = (j: RestJob, attempt: number | undefined): JobFacts => ({
  id: j.id,
  nodeId: j.node_id,
  name: j.name,
  status: j.status,
  conclusion: j.conclusion as JobFacts['conclusion'],
  runnerName: j.runner_name,
  startedAt: j.started_at ?? null,
  completedAt: j.completed_at,
  runAttempt: j.run_attempt ?? attempt ?? 0,
});

/** GraphQL's `nodes(ids:)` takes 100 ids; one query asks for several such fields under aliases. */
const NODES_PER_FIELD = 100;
/** Keeps one query's cost modest: 5 × 100 check runs × 50 annotations. */
const FIELDS_PER_QUERY = 5;
/** Annotations one query reads per job; a job with more is read again over REST, all of it. */
export const ANNOTATIONS_PER_JOB = 50;

export function annotationsQuery(fields: number): string {
  const vars = Array.from({ length: fields }, (_, i) => `$ids${i}: [ID!]!`).join(', ');
  const body = Array.from({ length: fields }, (_, i) => `  b${i}: nodes(ids: $ids${i}) { ...Annotated }`).join('\n');
  return `query(${vars}) {
${body}
}
fragment Annotated on CheckRun {
  databaseId
  annotations(first: ${ANNOTATIONS_PER_JOB}) { pageInfo { hasNextPage } nodes { annotationLevel title message } }
}`;
}

/** Statuses GitHub uses to refuse a re-run; anything else is a fault and is retried. */
export const RERUN_REFUSALS: ReadonlySet<number> = new Set([403, 404, 409, 422]);

/** GitHub's refusal in words the decision can quote. */
export function refusalText(status: number, message: string | undefined): string {
  return message ? `GitHub said ${status}: ${message}` : `GitHub answered ${status}`;
}

/** A run (or one attempt of it) with the fields GitHub reports, as the CLI shows and replays it. */
export interface RunRecord {
  readonly id: number;
  readonly name?: string | null;
  readonly path?: string;
  readonly workflow_id: number;
  readonly event: string;
  readonly status: string | null;
  readonly conclusion: string | null;
  readonly head_sha: string;
  readonly head_branch: string | null;
  readonly run_attempt?: number;
  readonly created_at: string;
  readonly html_url: string;
  readonly pull_requests: { readonly number: number }[] | null;
  readonly repository: { readonly id: number };
}

/** A GraphQL answer: its data, and GitHub's errors in its own words. */
export interface GraphqlAnswer {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: readonly { readonly type?: string; readonly message?: string }[];
}

/** A file read with its ETag: an unchanged file costs a 304, which GitHub does not count. */
export type FileRead =
  | { readonly kind: 'found'; readonly text: string; readonly etag?: string }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'absent' };

/** A run of a workflow, as the staleness check compares it. */
export interface WorkflowRunSummary {
  readonly id: number;
  readonly createdAt: string;
  readonly headSha: string;
  readonly headBranch: string | null;
}

export interface CheckRunReport {
  readonly name: string;
  readonly headSha: string;
  readonly conclusion: 'neutral' | 'success' | 'failure';
  readonly title: string;
  readonly summary: string;
  readonly text: string;
}

interface HttpFault {
  readonly status?: number;
  readonly message?: string;
  readonly response?: { readonly data?: { readonly message?: string } };
}

/** The HTTP status of a failed call; a rate limit has none (it is a RateLimitedError). */
const statusOf = (err: unknown): number | undefined =>
  err instanceof RateLimitedError ? undefined : (err as HttpFault | undefined)?.status;

/**
 * One repository as reprise sees it on GitHub: every call a decision, the reconciler or the
 * CLI makes about a repository goes through here. GitHub's answers come back as domain facts
 * or typed answers (a refusal, a missing log, a NotFoundError), never as HTTP statuses, and
 * every request is counted.
 */
export class RepoApi {
  private sent = 0;
  private readonly rest: GitHubClient['request'];
  private readonly graphql: GitHubClient['request'];
  private readonly paginate: GitHubClient['paginate'];
  private readonly fetchLog: (url: URL, init: RequestInit) => Promise<Response>;
  private readonly timeout: RequestTimeout;

  constructor(
    clients: GitHubClients,
    private readonly owner: string,
    private readonly repo: string,
    /** Absolute: GHES serves GraphQL beside, not below, its REST base. */
    private readonly graphqlUrl: string,
  ) {
    const count = (): void => void this.sent++;
    this.rest = meteredRequest(clients.rest, count);
    this.graphql = meteredRequest(clients.graphql, count);
    this.paginate = clients.rest.paginate;
    this.timeout = clients.timeout;
    // The log host is not GitHub's API: a plain fetch, so no installation token goes to it.
    this.fetchLog = (url, init) => {
      count();
      return fetch(url, init);
    };
  }

  /** Requests issued through this repository's calls: pages, log reads and configuration reads (304s too) included. */
  get requests(): number {
    return this.sent;
  }

  /** The run; NotFoundError when GitHub knows no such run (or repository). */
  async getRun(runId: number): Promise<RunFacts> {
    const { data } = await this.runOrNotFound(() =>
      this.rest('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
        owner: this.owner,
        repo: this.repo,
        run_id: runId,
      }),
    );
    return {
      id: Number(data.id),
      status: data.status ?? 'unknown',
      conclusion: data.conclusion,
      runAttempt: data.run_attempt ?? 1,
      event: data.event,
      headSha: data.head_sha,
      headBranch: data.head_branch,
      workflowId: Number(data.workflow_id),
      createdAt: data.created_at,
    };
  }

  /** One job's status (`queued`, `in_progress`, `completed`, …); NotFoundError when GitHub knows no such job. */
  async jobStatus(jobId: number): Promise<string> {
    const { data } = await this.runOrNotFound(() =>
      this.rest('GET /repos/{owner}/{repo}/actions/jobs/{job_id}', {
        owner: this.owner,
        repo: this.repo,
        job_id: jobId,
      }),
    );
    return String(data.status);
  }

  /** The run as GitHub reports it, or one attempt of it; NotFoundError when there is none. */
  async runRecord(runId: number, attempt?: number): Promise<RunRecord> {
    const params = { owner: this.owner, repo: this.repo, run_id: runId };
    const { data } = await this.runOrNotFound(() =>
      attempt === undefined
        ? this.rest('GET /repos/{owner}/{repo}/actions/runs/{run_id}', params)
        : this.rest('GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}', {
            ...params,
            attempt_number: attempt,
          }),
    );
    return data as RunRecord;
  }

  /** Every job of one attempt; a listing shorter than GitHub's total is an error, never a decision. */
  listAttemptJobs(runId: number, attempt: number): Promise<JobFacts[]> {
    return this.listJobs(
      'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs',
      { run_id: runId, attempt_number: attempt },
      attempt,
      `run ${runId} attempt ${attempt}`,
    );
  }

  /**
   * The run's latest jobs (`filter=latest`): each job's most recent execution, with the attempt
   * it ran in. A job re-run in a newer attempt is listed with that attempt, so the listing also
   * tells whether the run has moved past the attempt being decided. NotFoundError when GitHub
   * knows no such run.
   */
  listLatestJobs(runId: number): Promise<JobFacts[]> {
    return this.runOrNotFound(() =>
      this.listJobs(
        'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
        { run_id: runId, filter: 'latest' },
        undefined,
        `run ${runId} (latest)`,
      ),
    );
  }

  private async runOrNotFound<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (statusOf(err) === 404) throw new NotFoundError('run or repository not found', { cause: err });
      throw err;
    }
  }

  private async listJobs(
    route: string,
    params: Record<string, string | number>,
    attempt: number | undefined,
    what: string,
  ): Promise<JobFacts[]> {
    const jobs: JobFacts[] = [];
    let total = 0;
    const pages = this.pages(route, params);
    for await (const page of pages) {
      total = (page.data as { total_count?: number }).total_count ?? total;
      const list = Array.isArray(page.data) ? page.data : (page.data as { jobs: RestJob[] }).jobs;
      for (const j of list as RestJob[]) jobs.push(toJob(j, attempt));
    }
    if (total > jobs.length) throw new IncompleteListingError(`listed ${jobs.length} of ${total} jobs of ${what}`);
    return jobs;
  }

  /** Every page of a listing of this repository, 100 to a page. */
  private pages(route: string, params: Record<string, string | number>): AsyncIterable<{ data: unknown }> {
    const [method, url] = route.split(' ');
    // Paginating the metered request keeps every page counted.
    const iterate = this.paginate.iterator as unknown as (
      request: GitHubClient['request'],
      parameters: Record<string, unknown>,
    ) => AsyncIterable<{ data: unknown }>;
    return iterate(this.rest, { method, url, owner: this.owner, repo: this.repo, ...params, per_page: 100 });
  }

  /**
   * Annotations of many jobs (jobs are check runs) in one GraphQL query for up to 500 jobs,
   * 100 per aliased `nodes` field. Jobs GraphQL could not answer are missing from the map: the
   * caller reads them over REST.
   */
  async annotationsByGraphql(jobs: readonly JobFacts[]): Promise<Map<number, Annotation[]>> {
    const out = new Map<number, Annotation[]>();
    const batches: JobFacts[][] = [];
    for (let i = 0; i < jobs.length; i += NODES_PER_FIELD) batches.push(jobs.slice(i, i + NODES_PER_FIELD));
    for (let q = 0; q < batches.length; q += FIELDS_PER_QUERY) {
      const group = batches.slice(q, q + FIELDS_PER_QUERY);
      const res = await this.graphql(`POST ${this.graphqlUrl}`, {
        query: annotationsQuery(group.length),
        variables: Object.fromEntries(group.map((b, i) => [`ids${i}`, b.map((j) => j.nodeId)])),
      });
      const data = (res.data as { data?: Record<string, unknown[] | undefined> }).data ?? {};
      group.forEach((batch, i) => {
        const nodes = data[`b${i}`] ?? [];
        batch.forEach((job, k) => {
          const node = nodes[k] as
            | {
                annotations?: {
                  pageInfo?: { hasNextPage?: boolean };
                  nodes?: { annotationLevel: string; title: string | null; message: string }[];
                };
              }
            | null
            | undefined;
          const list = node?.annotations?.nodes;
          // A full page may not be all of them (a runner-loss annotation often comes last): REST reads the rest.
          if (!list || node?.annotations?.pageInfo?.hasNextPage !== false) return;
          out.set(
            job.id,
            list.map((a) => ({ level: a.annotationLevel.toLowerCase(), title: a.title, message: a.message })),
          );
        });
      });
    }
    return out;
  }

  /**
   * One GraphQL document of this repository's, answered as GitHub sends it: `data` and any
   * `errors` (a refused mutation is an answer, not a fault). Rate limits and HTTP faults throw.
   */
  async graphqlDocument(query: string, variables: Record<string, unknown>): Promise<GraphqlAnswer> {
    const res = await this.graphql(`POST ${this.graphqlUrl}`, { query, variables });
    return (res.data ?? {}) as GraphqlAnswer;
  }

  /**
   * One job's annotations over REST, paged until more than `cap` are read: a job with more is
   * `tooMany` (cut short), so its cost stays at `cap / 100 + 1` requests however many it has.
   * 403 (unless rate-limited), 404 and 410 mean "unreadable", not a fault.
   */
  async annotationsByRest(jobId: number, cap = SCAN_LIMITS.textsPerWindow): Promise<AnnotationEvidence> {
    const out: Annotation[] = [];
    try {
      for await (const page of this.pages('GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations', {
        check_run_id: jobId,
      })) {
        for (const a of page.data as { annotation_level?: string; title?: string | null; message?: string }[]) {
          out.push({ level: a.annotation_level ?? 'notice', title: a.title ?? null, message: a.message ?? '' });
        }
        if (out.length > cap) return { tooMany: cap };
      }
      return out;
    } catch (err) {
      const status = statusOf(err);
      if (status === 403 || status === 404 || status === 410) return { unavailable: status };
      throw err;
    }
  }

  /**
   * The `##[error]` lines of a job log's head and tail. GitHub answers with a redirect to the
   * log host; a log GitHub no longer has is `missing`, one it will not show is `unreadable`.
   */
  async jobLog(jobId: number, opts: JobLogOptions): Promise<LogEvidence> {
    let location: string | undefined;
    try {
      const res = await this.rest('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
        owner: this.owner,
        repo: this.repo,
        job_id: jobId,
        request: { redirect: 'manual', parseSuccessResponseBody: false },
      });
      location = (res.headers as Record<string, string | undefined>).location;
    } catch (err) {
      const status = statusOf(err);
      if (status === 404 || status === 410) return 'missing';
      // A rate limit is no refusal to show the log: it is a RateLimitedError, retried later.
      if (status === 403) return 'unreadable';
      throw err;
    }
    if (!location) return 'unreadable';
    // Each read of the log host has the timeout of any GitHub request, its body included.
    const signals: AbortSignal[] = [];
    const timed = (url: URL, init: RequestInit): Promise<Response> => {
      const signal = this.timeout.signal(this.timeout.ms);
      signals.push(signal);
      return this.fetchLog(url, { ...init, signal });
    };
    try {
      return await readLogAt(location, jobId, opts, timed);
    } catch (err) {
      if (!signals.some((s) => s.aborted)) throw err;
      throw new RequestTimeoutError(`the log host did not answer for job ${jobId} within ${this.timeout.ms} ms`, {
        cause: err,
      });
    }
  }

  /** The workflow's recent runs on a branch, or for a head sha. */
  async workflowRuns(
    workflowId: number,
    on: { readonly branch: string } | { readonly headSha: string },
  ): Promise<WorkflowRunSummary[]> {
    const { data } = await this.rest('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', {
      owner: this.owner,
      repo: this.repo,
      workflow_id: workflowId,
      ...('branch' in on ? { branch: on.branch } : { head_sha: on.headSha }),
      per_page: 20,
    });
    return data.workflow_runs.map((r) => ({
      id: Number(r.id),
      createdAt: r.created_at,
      headSha: r.head_sha,
      headBranch: r.head_branch,
    }));
  }

  async pullRequest(number: number): Promise<{ readonly open: boolean; readonly headSha: string }> {
    const { data } = await this.rest('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner: this.owner,
      repo: this.repo,
      pull_number: number,
    });
    return { open: data.state !== 'closed', headSha: data.head.sha };
  }

  /** A file of this repository, or of another repository of the same owner (`repo`). */
  async readFile(path: string, { repo = this.repo, etag }: { repo?: string; etag?: string } = {}): Promise<FileRead> {
    try {
      const res = await this.rest('GET /repos/{owner}/{repo}/contents/{path}', {
        owner: this.owner,
        repo,
        path,
        headers: etag ? { 'if-none-match': etag } : {},
      });
      const data = res.data as { content?: string };
      const text = data.content ? Buffer.from(data.content, 'base64').toString('utf8') : '';
      return { kind: 'found', text, ...(res.headers.etag && { etag: res.headers.etag }) };
    } catch (err) {
      const status = statusOf(err);
      if (status === 304 && etag) return { kind: 'unchanged' };
      if (status === 404) return { kind: 'absent' };
      throw err;
    }
  }

  async createCheckRun(report: CheckRunReport): Promise<void> {
    await this.rest('POST /repos/{owner}/{repo}/check-runs', {
      owner: this.owner,
      repo: this.repo,
      name: report.name,
      head_sha: report.headSha,
      status: 'completed',
      conclusion: report.conclusion,
      output: { title: report.title, summary: report.summary, text: report.text },
    });
  }

  rerunFailedJobs(runId: number): Promise<RerunAnswer> {
    return this.rerun('failed_jobs', 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs', {
      run_id: runId,
    });
  }

  rerunJob(jobId: number): Promise<RerunAnswer> {
    return this.rerun('job', 'POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun', { job_id: jobId });
  }

  rerunRun(runId: number): Promise<RerunAnswer> {
    return this.rerun('run', 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun', { run_id: runId });
  }

  /**
   * A refusal (403/404/409/422) is an answer; any other failure propagates and the message is
   * retried. Each call is one POST: never sent again in-process (see ONE_SHOT).
   */
  private async rerun(call: RerunCall, route: string, params: Record<string, number>): Promise<RerunAnswer> {
    let status: number;
    try {
      ({ status } = await this.rest(route, { owner: this.owner, repo: this.repo, ...params, request: ONE_SHOT }));
    } catch (err) {
      const refused = statusOf(err);
      if (refused === undefined || !RERUN_REFUSALS.has(refused)) throw err;
      const e = err as HttpFault;
      return { call, accepted: false, refusal: refusalText(refused, e.response?.data?.message ?? e.message) };
    }
    if (status >= 200 && status < 300) return { call, accepted: true };
    throw new TransientError(`unexpected ${status} from the ${call} re-run call`);
  }
}
