/**
 * What GitHub's history holds for a backtest: the repositories, the runs created in a period
 * (each as of its latest attempt), and the earlier attempts of runs that were re-run.
 */
import type { GitHubClients } from '../github/client.js';
import type { RunRecord } from '../github/repo-answers.js';

/** Who started an attempt (`triggering_actor`): a person, or an App acting as a bot. */
export interface Actor {
  readonly login: string;
  /** An App acting as a bot (`type: Bot`, or a `[bot]` login), not a person. */
  readonly bot: boolean;
}

/** One attempt of a run, as GitHub reports it. */
export interface AttemptRecord {
  readonly number: number;
  readonly status: string;
  readonly conclusion: string | null;
  /** `run_started_at`: when this attempt started. */
  readonly startedAt: string;
  /** `updated_at`: when this attempt last changed, its completion once completed. */
  readonly completedAt: string;
  /** `triggering_actor`: who started this attempt. */
  readonly actor: Actor | null;
}

/** A repository as named, or listed. */
export interface RepoName {
  readonly owner: string;
  readonly name: string;
}

/** A repository as GitHub lists it: its name and its id (the id keys the cache and the queue message). */
export interface Repository extends RepoName {
  readonly id: number;
}

/** A run as the listing shows it: its latest attempt, and what the decision's message needs. */
export interface ListedRun {
  readonly repository: Repository;
  readonly id: number;
  readonly workflowId: number;
  readonly workflowName: string;
  readonly workflowPath: string | null;
  readonly event: string;
  readonly headSha: string;
  readonly headBranch: string | null;
  readonly createdAt: string;
  readonly pullRequests: readonly number[];
  readonly htmlUrl: string;
  readonly latest: AttemptRecord;
}

type User = { login?: string; type?: string } | null | undefined;

/** A run record with the fields of its attempt a backtest reads. */
export type HistoryRecord = RunRecord & {
  readonly updated_at: string;
  readonly run_started_at?: string;
  readonly triggering_actor?: User;
};

const actorOf = (u: User): Actor | null =>
  u?.login ? { login: u.login, bot: u.type === 'Bot' || /\[bot\]$/.test(u.login) } : null;

/** One attempt from a run's record (the run itself: its latest attempt; or `attempts/{n}`). */
export function attemptOf(r: HistoryRecord): AttemptRecord {
  return {
    number: r.run_attempt ?? 1,
    status: r.status ?? 'unknown',
    conclusion: r.conclusion,
    startedAt: r.run_started_at ?? r.created_at,
    completedAt: r.updated_at,
    actor: actorOf(r.triggering_actor),
  };
}

/** The run as listed; the repository is the one listed from. */
export function listedRun(r: HistoryRecord, repo: RepoName): ListedRun {
  return {
    repository: { id: r.repository.id, owner: repo.owner, name: repo.name },
    id: Number(r.id),
    workflowId: Number(r.workflow_id),
    workflowName: r.name ?? '',
    workflowPath: r.path ?? null,
    event: r.event,
    headSha: r.head_sha,
    headBranch: r.head_branch,
    createdAt: r.created_at,
    pullRequests: (r.pull_requests ?? []).map((p) => p.number),
    htmlUrl: r.html_url,
    latest: attemptOf(r),
  };
}

/** GitHub's date syntax for "created at or after": the period's start, to the second. */
export const createdSince = (sinceMs: number): string =>
  `>=${new Date(sinceMs).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;

/** Every run of a repository created since a time, 100 to a page. */
export async function listRuns(clients: GitHubClients, repo: RepoName, sinceMs: number): Promise<ListedRun[]> {
  const runs: ListedRun[] = [];
  const pages = clients.rest.paginate.iterator('GET /repos/{owner}/{repo}/actions/runs', {
    owner: repo.owner,
    repo: repo.name,
    created: createdSince(sinceMs),
    per_page: 100,
  });
  for await (const page of pages) {
    for (const r of page.data) runs.push(listedRun(r as unknown as HistoryRecord, repo));
  }
  return runs;
}

/** The repositories an installation's token may see, 100 to a page. */
export async function installationRepositories(clients: GitHubClients): Promise<RepoName[]> {
  const repos: RepoName[] = [];
  const pages = clients.rest.paginate.iterator('GET /installation/repositories', { per_page: 100 });
  for await (const page of pages) {
    for (const r of page.data) repos.push({ owner: r.owner.login, name: r.name });
  }
  return repos;
}

/** True when an attempt ended red: the attempts reprise would have been asked about. */
export const failedAttempt = (a: AttemptRecord): boolean =>
  a.status === 'completed' && (a.conclusion === 'failure' || a.conclusion === 'cancelled');
