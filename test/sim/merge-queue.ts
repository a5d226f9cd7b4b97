import type { SimModel } from './model.js';
import type { SimRun } from './runs.js';
import type { SimPullRequest, SimRunSpec } from './types.js';

/**
 * Merge queues as GitHub runs them: a pull request in the queue is tested in a merge group, a
 * commit on `gh-readonly-queue/<base>/pr-<number>-<base sha>` whose `merge_group` runs are the
 * required checks. A required run that fails removes the pull request from the queue; re-running
 * the run does not bring it back. Only `enqueuePullRequest` does, with its refusals.
 */
export interface SimMergeGroupSpec extends Omit<SimRunSpec, 'event' | 'headSha' | 'headBranch' | 'pullRequests'> {
  pullRequest: number;
  /** The pull-request head the group tests; default a new sha (or the open pull request's head). */
  prHead?: string;
  /** `merge` ends the group in a two-parent merge commit; `squash` and `rebase` in a one-parent commit. */
  mergeMethod?: 'merge' | 'squash' | 'rebase';
  /** The group's base commit; default a new sha. */
  baseSha?: string;
  /** The group's commit, to add another required workflow's run of the same group; default a new sha. */
  groupSha?: string;
}

export interface SimMergeGroup {
  run: SimRun;
  /** The group's commit: the run's head sha. */
  groupSha: string;
  baseSha: string;
  /** The pull-request head the group tested. */
  testedHead: string;
  branch: string;
}

/** Adds a merge group for an open pull request and one of its `merge_group` runs. */
export function addMergeGroupRun(model: SimModel, spec: SimMergeGroupSpec): SimMergeGroup {
  const repo = model.repo(spec.repo);
  const existing = model.pull(repo, spec.pullRequest);
  const testedHead = spec.prHead ?? existing?.headSha ?? model.rng.hex(40);
  if (!existing) model.addPullRequest(repo.fullName, { number: spec.pullRequest, state: 'open', headSha: testedHead });
  const baseSha = spec.baseSha ?? model.rng.hex(40);
  const groupSha = spec.groupSha ?? model.rng.hex(40);
  const method = spec.mergeMethod ?? 'merge';
  model.commits.set(groupSha, { parents: method === 'merge' ? [baseSha, testedHead] : [baseSha] });
  const branch = `gh-readonly-queue/${repo.defaultBranch}/pr-${spec.pullRequest}-${baseSha}`;
  const { pullRequest: _pr, prHead: _head, mergeMethod: _m, baseSha: _b, groupSha: _g, ...runSpec } = spec;
  // GitHub lists no pull request on a merge group's run.
  const run = model.addRun({
    ...runSpec,
    event: 'merge_group',
    headSha: groupSha,
    headBranch: branch,
    pullRequests: [],
  });
  const latest = run.attempts.at(-1);
  const failed = latest?.status === 'completed' && latest.conclusion !== 'success';
  // In the queue while its group is tested; out within seconds of a required run failing.
  setQueued(model.pull(repo, spec.pullRequest)!, !failed);
  return { run, groupSha, baseSha, testedHead, branch };
}

/** A merge group's run ended red: GitHub takes its pull request out of the queue within seconds. */
export function ejectOnFailure(model: SimModel, run: SimRun): void {
  const n = /\/pr-(\d+)-/.exec(run.headBranch ?? '')?.[1];
  if (run.event !== 'merge_group' || run.conclusion === 'success' || n === undefined) return;
  const pr = model.pull(model.repo(run.repo), Number(n));
  if (pr) setQueued(pr, false);
}

function setQueued(pr: SimPullRequest, queued: boolean): void {
  pr.inMergeQueue = queued && pr.state === 'open';
}

/** GitHub's refusal of `enqueuePullRequest`, or null when it takes the pull request. */
export function enqueueRefusal(pr: SimPullRequest, expectedHeadOid: string | null): string | null {
  if (pr.state !== 'open') return 'Pull request is closed and cannot be added to the merge queue.';
  if (pr.inMergeQueue) return 'Pull request is already in the merge queue.';
  if (expectedHeadOid !== null && expectedHeadOid !== pr.headSha) {
    return `Head sha didn't match expected head sha: the head is ${pr.headSha}.`;
  }
  if (!pr.mergeable) return 'Pull request is not mergeable.';
  return null;
}

/** Puts the pull request at the end of its queue; answers its entry as GraphQL shows it. */
export function enqueue(model: SimModel, pr: SimPullRequest): Record<string, unknown> {
  setQueued(pr, true);
  const position = [...model.pulls.values()].filter((p) => p.repo === pr.repo && p.inMergeQueue).length;
  return {
    __typename: 'MergeQueueEntry',
    id: `MQE_${pr.nodeId}`,
    position,
    state: 'QUEUED',
    jump: false,
    solo: false,
    enqueuedAt: new Date().toISOString(),
  };
}

export function pullByNodeId(model: SimModel, id: string): SimPullRequest | undefined {
  return [...model.pulls.values()].find((p) => p.nodeId === id);
}
