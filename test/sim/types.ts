/** Public types of the GitHub simulator: what tests describe, and the live model they get back. */

export type SimJobConclusion = 'success' | 'failure' | 'cancelled' | 'skipped' | 'timed_out' | null;
export type SimStatus = 'queued' | 'in_progress' | 'completed';
export type SimAnnotationLevel = 'failure' | 'warning' | 'notice';

export interface SimAnnotationSpec {
  level: SimAnnotationLevel;
  title?: string;
  message: string;
}

export interface SimJobSpec {
  name: string;
  /** null = still running. */
  conclusion: SimJobConclusion;
  /** Default completed (in_progress when conclusion is null). */
  status?: SimStatus;
  runnerName?: string | null;
  /** The runner group the job ran in; default `Default` once a runner took it, else none. */
  runnerGroup?: string | null;
  /** A list, or the error status the annotations endpoint answers for this job. */
  annotations?: SimAnnotationSpec[] | { status: 403 | 404 | 410 };
  /** string = job log text; null or 404 = no log. Default: a short generated log. */
  log?: string | null | { status: 404 | 410 };
  /** ISO time; default: the run's updated time. */
  completedAt?: string;
  /** ISO time a runner took the job; default: 4 s after the run was created. */
  startedAt?: string;
  /** Runner labels; default ['self-hosted', 'linux', 'x64']. */
  labels?: string[];
  /** Names of jobs this one depends on: a re-run of a dependency re-runs it too. */
  needs?: string[];
}

export type SimRerunOutcome = 'success' | 'same' | ((job: SimJobSpec, nextAttempt: number) => Partial<SimJobSpec>);

export interface SimRunSpec {
  /** "owner/name"; the repository is created on first use. */
  repo: string;
  id?: number;
  workflowName?: string;
  workflowPath?: string;
  workflowId?: number;
  /** Default 'push'. */
  event?: string;
  headSha?: string;
  /** Default `branch-<run number>`: a branch of its own, so no other run supersedes it. */
  headBranch?: string;
  status?: SimStatus;
  /** Default derived from jobs: any failure -> failure, else any cancelled -> cancelled, else success. */
  conclusion?: 'success' | 'failure' | 'cancelled' | null;
  /** Default 1; earlier attempts are synthesized as failed copies. */
  runAttempt?: number;
  jobs: SimJobSpec[];
  pullRequests?: number[];
  /** What the re-run jobs conclude with on the next attempt. Default 'success'. */
  onRerun?: SimRerunOutcome;
  /** ISO creation time of the run; default 15 minutes ago. */
  createdAt?: string;
}

/** One attempt of a run seeded as history: when it ran, who started it, what its jobs concluded. */
export interface SimAttemptSpec {
  /** Attempt 1: the jobs of the run. Later attempts: the jobs it executed again (by name); the others are kept. */
  jobs: SimJobSpec[];
  /** Default octocat. */
  actor?: SimActor;
  /** ISO times: the attempt's `run_started_at`, and its completion (`updated_at`, the jobs' `completed_at`). */
  startedAt: string;
  completedAt: string;
}

/** A finished run with its whole history, e.g. a month back: attempt 1, then each re-run. */
export interface SimHistorySpec {
  repo: string;
  workflowName?: string;
  workflowPath?: string;
  event?: string;
  headBranch?: string;
  headSha?: string;
  pullRequests?: number[];
  attempts: SimAttemptSpec[];
}

/** One job of one attempt. A job kept by rerun-failed-jobs is the same job (same id) listed again. */
export interface SimJob {
  id: number;
  nodeId: string;
  runId: number;
  /** The attempt that executed the job. */
  runAttempt: number;
  name: string;
  status: SimStatus;
  conclusion: SimJobConclusion;
  runnerName: string | null;
  runnerGroup: string | null;
  labels: string[];
  needs: string[];
  createdAt: string;
  startedAt: string;
  completedAt: string | null;
  annotations: SimAnnotationSpec[] | { status: 403 | 404 | 410 };
  log: string | null | { status: 404 | 410 };
  /** The spec the job was built from (after re-run overrides). */
  spec: SimJobSpec;
}

/** Who started a run attempt: a person, or an App acting as a bot (`renovate[bot]`). */
export interface SimActor {
  login: string;
  type: 'User' | 'Bot';
}

export interface SimAttempt {
  number: number;
  /** Who started it (`triggering_actor`); default octocat. */
  actor?: SimActor;
  status: SimStatus;
  conclusion: 'success' | 'failure' | 'cancelled' | null;
  jobs: SimJob[];
  /** Names of jobs executed by this attempt; the others were carried over from an earlier one. */
  executed: string[];
  startedAt: string;
  updatedAt: string;
}

export interface SimRepo {
  id: number;
  nodeId: string;
  owner: string;
  ownerId: number;
  name: string;
  fullName: string;
  defaultBranch: string;
}

export interface SimPullRequest {
  id: number;
  /** The GraphQL node id `enqueuePullRequest` names. */
  nodeId: string;
  repo: string;
  number: number;
  state: 'open' | 'closed';
  headSha: string;
  headRef: string;
  baseRef: string;
  createdAt: string;
  /** In the base branch's merge queue now. */
  inMergeQueue: boolean;
  /** False when it conflicts with its base or branch protection refuses it: the queue will not take it. */
  mergeable: boolean;
}

/** One `enqueuePullRequest` mutation as GitHub received it, whatever the answer. */
export interface SimEnqueueRequest {
  pullRequestId: string;
  /** The pull request the id names, when it names one. */
  pullRequest: number | null;
  expectedHeadOid: string | null;
  jump: boolean;
  at: number;
  accepted: boolean;
  /** GitHub's error when it refused. */
  message: string | null;
}

export interface SimInstallation {
  id: number;
  account: string;
  accountId: number;
  repositorySelection: 'all' | 'selected';
  repos: string[];
  permissions: Record<string, string>;
  events: string[];
  createdAt: string;
}

export interface SimDelivery {
  id: number;
  guid: string;
  event: string;
  action: string | null;
  statusCode: number;
  deliveredAt: string;
  redelivery: boolean;
  installationId: number | null;
  repositoryId: number | null;
  duration: number;
}

export interface SimCheckRun {
  id: number;
  nodeId: string;
  repo: string;
  checkSuiteId: number;
  name: string;
  headSha: string;
  status: SimStatus;
  conclusion: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  startedAt: string | null;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
}

export interface SimApp {
  id: number;
  slug: string;
  name: string;
  owner: string;
  pem: string;
  webhookSecret: string;
  clientId: string;
  clientSecret: string;
  htmlUrl: string;
}

export interface SimRerunRecord {
  kind: 'failed_jobs' | 'run' | 'job';
  runId: number;
  jobId?: number;
  attemptBefore: number;
  at: number;
  /** Names of the jobs the new attempt executed, and of those it kept from the one before. */
  jobsRerun: string[];
  jobsKept: string[];
}

/**
 * One re-run POST as GitHub received it (`rerun-failed-jobs`, `rerun`, or a job's `rerun`),
 * whatever the answer: accepted, refused on its merits (403 "No failed jobs to re-run"), or
 * turned away before the run was looked at (an injected fault, auth, a rate limit).
 */
export interface SimRerunRequest {
  kind: SimRerunRecord['kind'];
  /** The run the request names (through its job for a job re-run); null when GitHub knows none. */
  runId: number | null;
  jobId?: number;
  /** The run's latest attempt when the request arrived. */
  attempt: number | null;
  /** Arrival time, ms since the epoch. */
  at: number;
  /** GitHub's answer; 0 until it is sent. */
  status: number;
  /** GitHub's message when the answer is not 2xx. */
  message: string | null;
}

/**
 * Whose request it is, from its Authorization header: the App's own (its JWT; GitHub does not
 * count it against an installation's rate limit), an installation's or another token's, or none
 * (a signed log URL).
 */
export type SimRequester = 'app' | 'token' | 'none';

export interface SimRequestRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  body?: unknown;
  at: number;
  as: SimRequester;
}

export interface SimFault {
  method?: string;
  path: RegExp;
  status: number;
  times?: number;
  /** Matching requests let through before the fault applies (the second GraphQL request of a decision, say). */
  after?: number;
  rate?: number;
  /** Seconds, sent as `retry-after`. */
  retryAfter?: number;
  /** Seconds until a spent limit resets: sent as `x-ratelimit-remaining: 0` and `x-ratelimit-reset`. */
  resetAfter?: number;
  message?: string;
  headers?: Record<string, string>;
}
