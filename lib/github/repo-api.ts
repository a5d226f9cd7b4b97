import type { AnnotationEvidence, LogEvidence } from '../classify/classify-job.js';
import { SCAN_LIMITS } from '../classify/scan-budget.js';
import { NotFoundError } from '../errors.js';
import type { Annotation, JobFacts, RerunAnswer, RunFacts } from '../model.js';
import { annotationsByGraphql, annotationsByRest } from './annotations.js';
import { type GitHubClient, type GitHubClients, ONE_SHOT } from './client.js';
import {
  type ConditionalListing,
  type JobListing,
  listJobs,
  listJobsIfChanged,
  listJobsTagged,
} from './job-listing.js';
import { type JobLogOptions, readJobLog } from './job-log.js';
import type { CheckRunReport, FileRead, GraphqlAnswer, RunRecord, WorkflowRunSummary } from './repo-answers.js';
import { type FileReadOptions, readRepoFile } from './repo-file.js';
import { type RepoRequests, repoRequests, statusOf } from './repo-requests.js';
import type { RequestTimeout } from './request-timeout.js';
import { rerunCall } from './rerun-call.js';
import { type ForceCancelAnswer, forceCancelCall } from './force-cancel.js';

const LATEST_JOBS = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs';

/**
 * One repository as reprise sees it on GitHub: every call a decision, the reconciler or the
 * CLI makes about a repository goes through here. GitHub's answers come back as domain facts
 * or typed answers (a refusal, a missing log, a NotFoundError), never as HTTP statuses, and
 * every request is counted.
 */
export class RepoApi {
  private sent = 0;
  private readonly calls: RepoRequests;
  private readonly rest: GitHubClient['request'];
  private readonly fetchLog: (url: URL, init: RequestInit) => Promise<Response>;
  private readonly timeout: RequestTimeout;

  constructor(
    clients: GitHubClients,
    private readonly owner: string,
    private readonly repo: string,
    /** Absolute: GHES serves GraphQL beside, not below, its REST base. */
    graphqlUrl: string,
  ) {
    const count = (): void => void this.sent++;
    this.calls = repoRequests(clients, { owner, repo, graphqlUrl }, count);
    this.rest = this.calls.rest;
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
    return runFactsOf(data);
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
    return listJobs(
      this.calls,
      'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs',
      { run_id: runId, attempt_number: attempt },
      attempt,
      `run ${runId} attempt ${attempt}`,
    );
  }

  /**
   * The run's latest jobs (`filter=latest`): each job's most recent execution, with the attempt
   * it ran in. A job re-run in a newer attempt is listed with that attempt, so the listing also
   * tells whether the run has moved past the attempt being decided. The listing's ETag comes
   * with it when one page held it. NotFoundError when GitHub knows no such run.
   */
  latestJobs(runId: number): Promise<JobListing> {
    return this.runOrNotFound(() =>
      listJobsTagged(this.calls, LATEST_JOBS, { run_id: runId, filter: 'latest' }, undefined, `run ${runId} (latest)`),
    );
  }

  /**
   * The run's latest jobs again, on the condition that they changed since the listing `etag`
   * names: `unchanged` is GitHub's 304, which costs no rate limit. NotFoundError when GitHub
   * knows no such run.
   */
  latestJobsIfChanged(runId: number, etag: string): Promise<ConditionalListing> {
    return this.runOrNotFound(() =>
      listJobsIfChanged(
        this.calls,
        LATEST_JOBS,
        { run_id: runId, filter: 'latest' },
        undefined,
        `run ${runId} (latest)`,
        etag,
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

  /**
   * Annotations of many jobs in GraphQL queries of up to 500 jobs. Jobs GraphQL could not
   * answer are missing from the map: the caller reads them over REST.
   */
  annotationsByGraphql(jobs: readonly JobFacts[]): Promise<Map<number, Annotation[]>> {
    return annotationsByGraphql(this.calls, jobs);
  }

  /**
   * One GraphQL document of this repository's, answered as GitHub sends it: `data` and any
   * `errors` (a refused mutation is an answer, not a fault). Rate limits and HTTP faults throw.
   */
  /**
   * One GraphQL document. A mutation is `oneShot`: never sent again in-process (a 5xx may have
   * acted), as the re-run calls are not.
   */
  async graphqlDocument(
    query: string,
    variables: Record<string, unknown>,
    opts: { readonly oneShot?: boolean } = {},
  ): Promise<GraphqlAnswer> {
    const res = await this.calls.graphql(`POST ${this.calls.graphqlUrl}`, {
      query,
      variables,
      ...(opts.oneShot && { request: ONE_SHOT }),
    });
    return (res.data ?? {}) as GraphqlAnswer;
  }

  /** One job's annotations over REST, cut short (`tooMany`) past `cap`; `unavailable` when GitHub will not show them. */
  annotationsByRest(jobId: number, cap = SCAN_LIMITS.textsPerWindow): Promise<AnnotationEvidence> {
    return annotationsByRest(this.calls, jobId, cap);
  }

  /**
   * The `##[error]` lines of a job log's head and tail. GitHub answers with a redirect to the
   * log host; a log GitHub no longer has is `missing`, one it will not show is `unreadable`.
   */
  jobLog(jobId: number, opts: JobLogOptions): Promise<LogEvidence> {
    return readJobLog(this.calls, jobId, opts, { timeout: this.timeout, fetch: this.fetchLog });
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
      runNumber: r.run_number,
      event: r.event,
      createdAt: r.created_at,
      headSha: r.head_sha,
      headBranch: r.head_branch,
      headRepositoryId: headRepositoryIdOf(r),
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

  /**
   * A file of this repository, or of another repository of the same owner (`repo`). One larger
   * than `maxBytes` (by the size GitHub declares) is not decoded.
   */
  readFile(path: string, opts: FileReadOptions = {}): Promise<FileRead> {
    return readRepoFile(this.calls, path, opts);
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

  /** Each re-run call is one POST, never sent again in-process; a refusal is an answer. */
  rerunFailedJobs(runId: number): Promise<RerunAnswer> {
    return rerunCall(this.calls, 'failed_jobs', { run_id: runId });
  }

  rerunJob(jobId: number): Promise<RerunAnswer> {
    return rerunCall(this.calls, 'job', { job_id: jobId });
  }

  rerunRun(runId: number): Promise<RerunAnswer> {
    return rerunCall(this.calls, 'run', { run_id: runId });
  }

  /** Ends the run without waiting for its runners (early recovery); one POST, its answer typed. */
  forceCancel(runId: number): Promise<ForceCancelAnswer> {
    return forceCancelCall(this.calls, runId);
  }
}

/** The head repository's id of a listed run (the client keeps big integers as bigint). */
const headRepositoryIdOf = (r: {
  readonly head_repository?: { readonly id: number | bigint } | null;
  readonly head_repository_id?: number | bigint;
}): number | null => {
  const id = r.head_repository?.id ?? r.head_repository_id;
  return id === undefined ? null : Number(id);
};

/** The facts a decision reads of a run, from GitHub's record of it (`GET …/runs/{id}`; the client may keep ids as bigint). */
export const runFactsOf = (
  data: Pick<
    RunRecord,
    'status' | 'conclusion' | 'run_attempt' | 'event' | 'head_sha' | 'head_branch' | 'created_at'
  > & {
    readonly id: number | bigint;
    readonly workflow_id: number | bigint;
  },
): RunFacts => ({
  id: Number(data.id),
  status: data.status ?? 'unknown',
  conclusion: data.conclusion,
  runAttempt: data.run_attempt ?? 1,
  event: data.event,
  headSha: data.head_sha,
  headBranch: data.head_branch,
  workflowId: Number(data.workflow_id),
  createdAt: data.created_at,
});
