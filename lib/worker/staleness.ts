import type { StaleFacts } from '../decide/decide.js';
import type { ActionsApi } from '../github/actions.js';
import type { RunFacts, RunMessage } from '../model.js';

/**
 * Looks for reasons a re-run would be wasted: a newer run of the same workflow for the same
 * head sha or branch, or a pull request that closed or moved on.
 */
export async function findStaleness(api: ActionsApi, msg: RunMessage, run: RunFacts): Promise<StaleFacts> {
  api.requests++;
  const { data } = await api.gh.request('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', {
    owner: api.owner,
    repo: api.repo,
    workflow_id: run.workflowId,
    ...(msg.headBranch ? { branch: msg.headBranch } : { head_sha: msg.headSha }),
    per_page: 20,
  });
  const newer = data.workflow_runs.find(
    (r) =>
      Number(r.id) !== msg.runId &&
      Date.parse(r.created_at) > Date.parse(run.createdAt) &&
      (r.head_sha === msg.headSha || (msg.headBranch !== null && r.head_branch === msg.headBranch)),
  );
  if (newer) return { newerRunId: Number(newer.id) };
  for (const number of msg.pullRequests.slice(0, 3)) {
    api.requests++;
    const { data: pr } = await api.gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner: api.owner,
      repo: api.repo,
      pull_number: number,
    });
    if (pr.state === 'closed') return { pullRequestClosed: number };
    if (pr.head.sha !== msg.headSha) return { pullRequestMovedOn: number };
  }
  return {};
}
