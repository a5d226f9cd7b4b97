import type { DecisionKind, MergeQueueMode, RepoConfig, RunMessage } from '../model.js';

/**
 * Merge-group runs, decided as any run is, acted on differently: when such a run would be
 * re-run, its pull request has already left the merge queue (GitHub removes it within seconds
 * of a required check failing) and a re-run does not bring it back. `decideRequeue()` says
 * whether to put the pull request back instead. Pure: it names the fact it needs next.
 */

/** The pull request a merge group's head branch names, and the commit the branch's name carries. */
export interface MergeGroupRef {
  readonly base: string;
  readonly pullRequest: number;
  /** The sha in the branch's name: the commit the group was built on, not the pull request's head. */
  readonly sha: string;
}

/** `gh-readonly-queue/<base>/pr-<number>-<sha>`; the base may itself hold slashes. */
const QUEUE_BRANCH = /^(?:refs\/heads\/)?gh-readonly-queue\/(.+)\/pr-([1-9]\d{0,9})-([0-9a-f]{40})$/;

/** The pull request and commit a merge group's head branch names; undefined for any other branch. */
export function parseMergeGroupBranch(branch: string | null): MergeGroupRef | undefined {
  const m = branch ? QUEUE_BRANCH.exec(branch) : null;
  if (!m) return undefined;
  return { base: m[1]!, pullRequest: Number(m[2]), sha: m[3]! };
}

/** A run GitHub started for a merge group: its pull request is put back in the queue instead of re-run. */
export const isMergeGroupRun = (msg: Pick<RunMessage, 'event'>): boolean => msg.event === 'merge_group';

/** How many times one pull-request head is put back in the merge queue unless configured. */
export const DEFAULT_MAX_REQUEUES = 1;
/** What a repository asks for a lost merge-group run: put the pull request back (the default), or re-run. */
export const mergeQueueMode = (cfg: RepoConfig): MergeQueueMode => cfg.mergeQueue ?? 'requeue';
/** How many times one pull-request head may be put back in the merge queue. */
export const maxRequeues = (cfg: RepoConfig): number => cfg.maxRequeues ?? DEFAULT_MAX_REQUEUES;

/**
 * The pull-request head the group tested. A group built with the merge method ends in a merge
 * commit whose last parent is the pull request's head; squash and rebase groups end in a
 * commit with one parent (the base), which names no pull-request commit at all.
 */
export function testedHead(parents: readonly string[]): string | undefined {
  return parents.length >= 2 ? parents[parents.length - 1] : undefined;
}

/** The pull request as GitHub shows it now. */
export interface QueuedPullFacts {
  /** The GraphQL node id the mutation names. */
  readonly id: string;
  readonly state: 'OPEN' | 'CLOSED' | 'MERGED';
  readonly headSha: string;
  readonly inMergeQueue: boolean;
}

/** What the group's head commit and its pull request look like: either may be missing. */
export interface MergeGroupFacts {
  readonly pull: QueuedPullFacts | null;
  /** Parents of the run's head commit (the group's commit); null when GitHub knows no such commit. */
  readonly parents: readonly string[] | null;
  /** GitHub's words when it would not show the pull request. */
  readonly error?: string;
}

/** The loop guard's answer: this head may be queued again, this group was handled, or the head's re-enqueues are spent. */
export type RequeueClaim = 'claimed' | 'group_handled' | 'cap';

/** How GitHub answered `enqueuePullRequest`. */
export type EnqueueAnswer = { readonly accepted: true } | { readonly accepted: false; readonly refusal: string };

/** What deciding a requeue depends on; absent facts have not been gathered yet. */
export interface RequeueFacts {
  readonly message: RunMessage;
  readonly config: RepoConfig;
  /** Why the run would be re-run (the decision's reason). */
  readonly rerunReason: string;
  readonly group?: MergeGroupFacts;
  readonly claim?: RequeueClaim;
  readonly answer?: EnqueueAnswer;
}

/** The requeue's answer: final, a fact it needs, an `enqueuePullRequest` to send, or a re-run after all. */
export type RequeueStep =
  | { readonly kind: 'final'; readonly decision: DecisionKind; readonly reason: string }
  | { readonly kind: 'need'; readonly what: 'group' | 'claim' }
  /** Send `enqueuePullRequest` for this pull request, expecting this head. */
  | {
      readonly kind: 'enqueue';
      readonly pullRequest: number;
      readonly pullRequestId: string;
      readonly expectedHeadOid: string;
    }
  /** Re-run the failed jobs, as for any run; `note` says why, when it is a fallback. */
  | { readonly kind: 'rerun'; readonly note?: string };

const short = (sha: string): string => sha.slice(0, 7);

/**
 * What a run that earned a re-run gets when it is a merge-group run. Not a merge-group run, or
 * `merge_queue: rerun`: the re-run. `off`: nothing. Otherwise the pull request goes back in the
 * queue when it is open, its head is still the one the group tested, it is not queued already,
 * and its head was not queued again `max_requeues` times; a refusal falls back to the re-run.
 */
export function decideRequeue(f: RequeueFacts): RequeueStep {
  const { message: msg, config: cfg } = f;
  if (!isMergeGroupRun(msg)) return { kind: 'rerun' };
  const mode = mergeQueueMode(cfg);
  if (mode === 'rerun') return { kind: 'rerun' };
  if (mode === 'off') {
    return {
      kind: 'final',
      decision: 'ignored',
      reason: `merge_queue: off leaves merge-group runs alone (${f.rerunReason})`,
    };
  }
  const ref = parseMergeGroupBranch(msg.headBranch);
  const fallback = (why: string): RequeueStep => ({ kind: 'rerun', note: `not queued again: ${why}; re-ran instead` });
  if (!ref) return fallback(`head branch ${JSON.stringify(msg.headBranch)} names no pull request`);
  const pr = `pull request #${ref.pullRequest}`;
  if (!f.group) return { kind: 'need', what: 'group' };
  const { pull, parents } = f.group;
  if (!pull) return fallback(`${pr} could not be read${f.group.error ? ` (${f.group.error})` : ''}`);
  if (pull.state !== 'OPEN') {
    return { kind: 'final', decision: 'stale', reason: `${pr} is ${pull.state.toLowerCase()}` };
  }
  const tested = parents ? testedHead(parents) : undefined;
  if (!tested) {
    const why = parents
      ? `the group's commit ${short(msg.headSha)} has one parent (squash or rebase merge method), so the head it tested is unknown`
      : `GitHub knows no commit ${short(msg.headSha)}`;
    return fallback(why);
  }
  if (pull.headSha !== tested) {
    return {
      kind: 'final',
      decision: 'stale',
      reason: `${pr} head moved from ${short(tested)} (tested by the merge group) to ${short(pull.headSha)}`,
    };
  }
  if (pull.inMergeQueue) return { kind: 'final', decision: 'stale', reason: `${pr} is in the merge queue again` };
  if (!f.claim) return { kind: 'need', what: 'claim' };
  if (f.claim === 'group_handled') {
    return { kind: 'final', decision: 'duplicate', reason: `${pr}: this merge group's ejection was already handled` };
  }
  if (f.claim === 'cap') {
    const max = maxRequeues(cfg);
    return {
      kind: 'final',
      decision: 'attempt_cap',
      reason: `${pr} head ${short(tested)} was already queued again ${max} time(s) (max_requeues ${max}); ${f.rerunReason}`,
    };
  }
  if (!f.answer) {
    return { kind: 'enqueue', pullRequest: ref.pullRequest, pullRequestId: pull.id, expectedHeadOid: tested };
  }
  if (!f.answer.accepted) return fallback(`enqueuePullRequest refused: ${f.answer.refusal}`);
  return {
    kind: 'final',
    decision: 'requeued',
    reason: `${f.rerunReason}; ${pr} queued again with head ${short(tested)}`,
  };
}
