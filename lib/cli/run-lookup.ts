import { NotFoundError } from '../errors.js';
import type { GitHubClients } from '../github/client.js';
import { RepoApi } from '../github/repo-api.js';
import type { RunMessage } from '../model.js';
import { CliError, UsageError } from './io.js';

/** A run named on the command line: `owner/repo run_id`, or `owner/repo#run_id[@attempt]`. */
export interface RunRef {
  readonly owner: string;
  readonly repo: string;
  readonly runId: number;
  readonly attempt?: number;
}

const REPO = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/;

/** Reads `owner/repo#run_id[@attempt]` (or `owner/repo run_id`) into the run a command is about. */
export function parseRunRef(positionals: readonly string[], attemptFlag?: string): RunRef {
  let repoPart: string | undefined;
  let runPart: string | undefined;
  let attemptPart = attemptFlag;
  if (positionals.length === 1 && positionals[0]?.includes('#')) {
    const m = /^([^#]+)#(\d+)(?:@(\d+))?$/.exec(positionals[0]);
    if (!m) throw new UsageError(`expected owner/repo#run_id[@attempt], got "${positionals[0]}"`);
    [, repoPart, runPart] = m;
    attemptPart = m[3] ?? attemptPart;
  } else if (positionals.length === 2) {
    [repoPart, runPart] = positionals;
  } else {
    throw new UsageError('expected <owner>/<repo> <run_id> (or owner/repo#run_id)');
  }
  const repo = REPO.exec(repoPart ?? '');
  if (!repo) throw new UsageError(`expected owner/repo, got "${repoPart}"`);
  const runId = Number(runPart);
  if (!Number.isSafeInteger(runId) || runId < 1) throw new UsageError(`expected a run id, got "${runPart}"`);
  let attempt: number | undefined;
  if (attemptPart !== undefined) {
    attempt = Number(attemptPart);
    if (!Number.isInteger(attempt) || attempt < 1)
      throw new UsageError(`expected an attempt ≥ 1, got "${attemptPart}"`);
  }
  return { owner: repo[1]!, repo: repo[2]!, runId, ...(attempt !== undefined && { attempt }) };
}

/** The run attempt as GitHub reports it, and the queue message the intake would have built. */
export interface LiveRun {
  readonly message: RunMessage;
  readonly status: string;
  readonly conclusion: string | null;
  /** The run's latest attempt. */
  readonly latestAttempt: number;
  readonly htmlUrl: string;
}

/** GitHub's 404 as the CLI reports it: the URL that was tried. */
async function orNotFound<T>(read: () => Promise<T>, what: string, route: string): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    const url = (err.cause as { request?: { url?: string } } | undefined)?.request?.url ?? route;
    throw new CliError(`${what} not found: GET ${url} answered 404`);
  }
}

/** Reads the run (and the attempt, when one is named) and builds its RunMessage. */
export async function readLiveRun(
  clients: GitHubClients,
  ref: RunRef,
  installationId: number | null,
  deliveryId: string,
  graphqlUrl: string,
): Promise<LiveRun> {
  const api = new RepoApi(clients, ref.owner, ref.repo, graphqlUrl);
  const where = `run ${ref.runId} of ${ref.owner}/${ref.repo}`;
  const run = await orNotFound(() => api.runRecord(ref.runId), where, '/repos/{owner}/{repo}/actions/runs/{run_id}');
  const latest = run.run_attempt ?? 1;
  const attempt = ref.attempt ?? latest;
  if (attempt > latest) throw new CliError(`${where} has ${latest} attempt(s); there is no attempt ${attempt}`);
  const at =
    attempt === latest
      ? run
      : await orNotFound(
          () => api.runRecord(ref.runId, attempt),
          `attempt ${attempt} of ${where}`,
          '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}',
        );
  return {
    message: {
      v: 1,
      deliveryId,
      installationId,
      repository: { id: run.repository.id, owner: ref.owner, name: ref.repo },
      runId: ref.runId,
      runAttempt: attempt,
      workflow: { id: Number(run.workflow_id), name: run.name ?? '', path: run.path ?? null },
      event: run.event,
      headSha: at.head_sha,
      headBranch: at.head_branch,
      // The intake only enqueues red runs; any other conclusion is reported before a decision.
      conclusion: at.conclusion === 'cancelled' ? 'cancelled' : 'failure',
      pullRequests: (run.pull_requests ?? []).map((p) => p.number),
      createdAt: run.created_at,
    },
    status: at.status ?? 'unknown',
    conclusion: at.conclusion,
    latestAttempt: latest,
    htmlUrl: at.html_url,
  };
}
