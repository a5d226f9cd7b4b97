import type { StaleFacts } from '../decide/decide.js';
import type { RepoApi } from '../github/repo-api.js';
import type { RunFacts, RunMessage } from '../model.js';

/**
 * Looks for reasons a re-run would be wasted: a newer run of the same workflow for the same
 * head sha or branch, or a pull request that closed or moved on.
 */
export async function findStaleness(api: RepoApi, msg: RunMessage, run: RunFacts): Promise<StaleFacts> {
  const runs = await api.workflowRuns(
    run.workflowId,
    msg.headBranch ? { branch: msg.headBranch } : { headSha: msg.headSha },
  );
  const newer = runs.find(
    (r) =>
      r.id !== msg.runId &&
      Date.parse(r.createdAt) > Date.parse(run.createdAt) &&
      (r.headSha === msg.headSha || (msg.headBranch !== null && r.headBranch === msg.headBranch)),
  );
  if (newer) return { newerRunId: newer.id };
  for (const number of msg.pullRequests.slice(0, 3)) {
    const pr = await api.pullRequest(number);
    if (!pr.open) return { pullRequestClosed: number };
    if (pr.headSha !== msg.headSha) return { pullRequestMovedOn: number };
  }
  return {};
}
