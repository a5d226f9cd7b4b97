import type { AnnotationEvidence } from '../classify/classify-job.js';
import type { RerunAnswer } from '../decide/rerun-outcome.js';
import { isRefusal } from '../decide/rerun-outcome.js';
import type { Annotation, JobFacts, RunFacts } from '../model.js';
import type { GitHubClient, GitHubClients } from './client.js';

export class IncompleteListingError extends Error {
  override name = 'IncompleteListingError';
}

interface RestJob {
  id: number;
  node_id: string;
  name: string;
  status: string;
  conclusion: string | null;
  runner_name: string | null;
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
  completedAt: j.completed_at,
  runAttempt: j.run_attempt ?? attempt ?? 0,
});

/** GraphQL's `nodes(ids:)` takes 100 ids; one query asks for several such fields under aliases. */
const NODES_PER_FIELD = 100;
/** Keeps one query's cost modest: 5 × 100 check runs × 50 annotations. */
const FIELDS_PER_QUERY = 5;

export function annotationsQuery(fields: number): string {
  const vars = Array.from({ length: fields }, (_, i) => `$ids${i}: [ID!]!`).join(', ');
  const body = Array.from({ length: fields }, (_, i) => `  b${i}: nodes(ids: $ids${i}) { ...Annotated }`).join('\n');
  return `query(${vars}) {
${body}
}
fragment Annotated on CheckRun { databaseId annotations(first: 50) { nodes { annotationLevel title message } } }`;
}

/** GitHub's Actions and Checks calls that the worker makes, each one request per page. */
export class ActionsApi {
  /** HTTP requests issued through this instance (pages included, 304s excluded). */
  requests = 0;

  readonly gh: GitHubClient;
  private readonly graphql: GitHubClient;

  constructor(
    clients: GitHubClients,
    readonly owner: string,
    readonly repo: string,
    /** Absolute: GHES serves GraphQL beside, not below, its REST base. */
    readonly graphqlUrl: string,
  ) {
    this.gh = clients.rest;
    this.graphql = clients.graphql;
  }

  async getRun(runId: number): Promise<RunFacts> {
    this.requests++;
    const { data } = await this.gh.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
      owner: this.owner,
      repo: this.repo,
      run_id: runId,
    });
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
   * tells whether the run has moved past the attempt being decided.
   */
  listLatestJobs(runId: number): Promise<JobFacts[]> {
    return this.listJobs(
      'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
      { run_id: runId, filter: 'latest' },
      undefined,
      `run ${runId} (latest)`,
    );
  }

  private async listJobs(
    route: string,
    params: Record<string, string | number>,
    attempt: number | undefined,
    what: string,
  ): Promise<JobFacts[]> {
    const jobs: JobFacts[] = [];
    let total = 0;
    const pages = this.gh.paginate.iterator(route, { owner: this.owner, repo: this.repo, ...params, per_page: 100 });
    for await (const page of pages) {
      this.requests++;
      total = (page.data as unknown as { total_count?: number }).total_count ?? total;
      const list = Array.isArray(page.data) ? page.data : (page.data as unknown as { jobs: RestJob[] }).jobs;
      for (const j of list as RestJob[]) jobs.push(toJob(j, attempt));
    }
    if (total > jobs.length) throw new IncompleteListingError(`listed ${jobs.length} of ${total} jobs of ${what}`);
    return jobs;
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
      this.requests++;
      const res = await this.graphql.request(`POST ${this.graphqlUrl}`, {
        query: annotationsQuery(group.length),
        variables: Object.fromEntries(group.map((b, i) => [`ids${i}`, b.map((j) => j.nodeId)])),
      });
      const data = (res.data as { data?: Record<string, unknown[] | undefined> }).data ?? {};
      group.forEach((batch, i) => {
        const nodes = data[`b${i}`] ?? [];
        batch.forEach((job, k) => {
          const node = nodes[k] as
            | { annotations?: { nodes?: { annotationLevel: string; title: string | null; message: string }[] } }
            | null
            | undefined;
          const list = node?.annotations?.nodes;
          if (!list) return;
          out.set(
            job.id,
            list.map((a) => ({ level: a.annotationLevel.toLowerCase(), title: a.title, message: a.message })),
          );
        });
      });
    }
    return out;
  }

  /** One job's annotations over REST; 403 (unless rate-limited), 404 and 410 mean "unreadable", not a fault. */
  async annotationsByRest(jobId: number): Promise<AnnotationEvidence> {
    const out: Annotation[] = [];
    try {
      const pages = this.gh.paginate.iterator('GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations', {
        owner: this.owner,
        repo: this.repo,
        check_run_id: jobId,
        per_page: 100,
      });
      for await (const page of pages) {
        this.requests++;
        for (const a of page.data) {
          out.push({ level: a.annotation_level ?? 'notice', title: a.title ?? null, message: a.message ?? '' });
        }
      }
      return out;
    } catch (err) {
      const status = (err as { status?: number }).status;
      // A rate-limited 403 is retried later, never read as "no annotations to see".
      if (status === 403 && isRateLimit(err)) throw err;
      if (status === 403 || status === 404 || status === 410) return { unavailable: status };
      throw err;
    }
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

  /** A refusal (403/404/409/422) is an answer; any other failure propagates and the message is retried. */
  private async rerun(call: RerunAnswer['call'], route: string, params: Record<string, number>): Promise<RerunAnswer> {
    this.requests++;
    try {
      const res = await this.gh.request(route, { owner: this.owner, repo: this.repo, ...params });
      return { call, status: res.status };
    } catch (err) {
      const e = err as { status?: number; message?: string; response?: { data?: { message?: string } } };
      if (e.status !== undefined && isRefusal(e.status) && !isRateLimit(err)) {
        return { call, status: e.status, message: e.response?.data?.message ?? e.message };
      }
      throw err;
    }
  }
}

/** A 403 that is really a rate limit must be retried later, not taken as a refusal. */
function isRateLimit(err: unknown): boolean {
  const h = (err as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ?? {};
  return h['retry-after'] !== undefined || h['x-ratelimit-remaining'] === '0';
}
