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
  /** Larger than the caller reads: its size as GitHub declared it, its content never decoded. */
  | { readonly kind: 'oversized'; readonly bytes: number; readonly etag?: string }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'absent' };

/** A run of a workflow, as the staleness check compares it. */
export interface WorkflowRunSummary {
  readonly id: number;
  readonly runNumber: number;
  readonly event: string;
  readonly createdAt: string;
  readonly headSha: string;
  readonly headBranch: string | null;
  /** The repository the run's head is in: another one for a fork's pull request. */
  readonly headRepositoryId: number | null;
}

/** A check run reprise creates on a commit to report a decision (`report: check_run`). */
export interface CheckRunReport {
  readonly name: string;
  readonly headSha: string;
  readonly conclusion: 'neutral' | 'success' | 'failure';
  readonly title: string;
  readonly summary: string;
  readonly text: string;
}
