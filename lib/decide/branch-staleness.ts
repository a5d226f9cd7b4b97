import type { RepoConfig, RunMessage } from '../model.js';

/**
 * Superseded branch runs. A run of a branch (push, schedule, workflow_dispatch, …) that a newer
 * run of the same workflow on the same branch has superseded is not re-run: a re-run joins the
 * run's concurrency group, so with `cancel-in-progress` it cancels the newer run, and without it
 * a deploy workflow ships the older commit last. Pure: the newest run known in, the answer out.
 */

/** A run of a workflow on a branch, as the intake records it and a listing shows it. */
export interface BranchRun {
  readonly runId: number;
  /** GitHub numbers a workflow's runs in order of creation. */
  readonly runNumber: number;
  readonly headSha: string;
}

/** Pull-request runs keep their own rule; merge-group runs theirs (merge-group.ts). */
export const isPullRequestEvent = (event: string): boolean => event.startsWith('pull_request');

/** Whether a run of `event` is a branch run: not a pull request's, not a merge group's. */
export const isBranchEvent = (event: string): boolean => !isPullRequestEvent(event) && event !== 'merge_group';

/** Which newer runs supersede a branch run. */
export type SupersededBy =
  /** `branch`: a newer run for another commit; a newer run of the same commit is a re-trigger. */
  | 'another_commit'
  /** `all`: any newer run of the workflow on the branch. */
  | 'any_newer';

/** The rule a configuration applies to this run's branch, or undefined when none does. */
export function branchRule(cfg: Pick<RepoConfig, 'staleCheck'>, msg: RunMessage): SupersededBy | undefined {
  if (msg.headBranch === null || isPullRequestEvent(msg.event)) return undefined;
  if (cfg.staleCheck === 'all') return 'any_newer';
  if (cfg.staleCheck === 'branch' && isBranchEvent(msg.event)) return 'another_commit';
  return undefined;
}

/** What the intake's record of the branch says of a run: superseded by a newer one, current, or unknown. */
export type BranchAnswer =
  | { readonly kind: 'stale'; readonly newer: BranchRun }
  | { readonly kind: 'current' }
  /** The record cannot answer: one listing of the branch's runs will. */
  | { readonly kind: 'list' };

const supersedes = (newer: BranchRun, run: BranchRun, rule: SupersededBy): boolean =>
  newer.runId !== run.runId &&
  newer.runNumber > run.runNumber &&
  (rule === 'any_newer' || newer.headSha !== run.headSha);

/**
 * The answer from the newest run recorded for the branch. The record answers when it is this run
 * (the branch head) or a newer run that supersedes it; missing, older than the run, or a newer
 * run of the same commit (another commit's run may lie between), it cannot.
 */
export function fromNewestRecorded(run: BranchRun, newest: BranchRun | undefined, rule: SupersededBy): BranchAnswer {
  if (!newest || newest.runNumber < run.runNumber) return { kind: 'list' };
  if (newest.runId === run.runId) return { kind: 'current' };
  if (supersedes(newest, run, rule)) return { kind: 'stale', newer: newest };
  return { kind: 'list' };
}

/** The answer from a listing of the branch's runs (only the repository's own branch runs). */
export function fromListed(run: BranchRun, listed: readonly BranchRun[], rule: SupersededBy): BranchAnswer {
  const newer = listed
    .filter((r) => supersedes(r, run, rule))
    .reduce<BranchRun | undefined>((best, r) => (!best || r.runNumber > best.runNumber ? r : best), undefined);
  return newer ? { kind: 'stale', newer } : { kind: 'current' };
}
