import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';

/** A pull request put back in the merge queue: its head, and the merge group that ejected it. */
export interface RequeueRef {
  readonly repoId: number;
  readonly pullRequest: number;
  /** The pull-request head the group tested. */
  readonly headSha: string;
  /** The group's commit (the run's head sha). */
  readonly groupSha: string;
}

/**
 * The merge-queue loop guard: at most `max` re-enqueues per pull-request head, and one per
 * merge group, each taken by a single-item conditional write before the mutation is sent.
 */
export interface Requeues {
  /** `claimed` for the one caller that may send the mutation; `group_handled` or `cap` for every other. */
  claim(ref: RequeueRef, max: number): Promise<'claimed' | 'group_handled' | 'cap'>;
  /** Gives a claim back when the mutation was turned away unsent (a rate limit), so a retry may take it. */
  release(ref: RequeueRef): Promise<void>;
}

/**
 * Re-enqueues of pull requests, two single-item conditional writes each: a marker per merge
 * group (several required workflows of one group fail together, and the group is handled once),
 * then a counter per pull-request head, raised only below the cap. A worker that dies between
 * the two leaves the group marked and the head uncounted: the pull request stays out of the
 * queue, the safe direction.
 */
export class TableRequeues implements Requeues {
  constructor(
    private readonly table: Table,
    private readonly now: () => number = Date.now,
  ) {}

  async claim(ref: RequeueRef, max: number): Promise<'claimed' | 'group_handled' | 'cap'> {
    const now = this.now();
    const ttl = ttlFrom(now, TTL.requeue);
    const group = keys.requeueGroup(ref.repoId, ref.pullRequest, ref.groupSha);
    const marked = await this.table.putIf(
      { ...group, headSha: ref.headSha, at: now, ttl },
      { expression: 'attribute_not_exists(#pk)' },
    );
    if (!marked) return 'group_handled';
    const counted = await this.table.updateIf(
      keys.requeueHead(ref.repoId, ref.pullRequest, ref.headSha),
      'SET #requeues = if_not_exists(#requeues, :zero) + :one, #ttl = :ttl',
      { ':zero': 0, ':one': 1, ':ttl': ttl },
      { expression: 'attribute_not_exists(#requeues) OR #requeues < :max', values: { ':max': max } },
    );
    return counted ? 'claimed' : 'cap';
  }

  async release(ref: RequeueRef): Promise<void> {
    await this.table.updateIf(
      keys.requeueHead(ref.repoId, ref.pullRequest, ref.headSha),
      'SET #requeues = #requeues - :one',
      { ':one': 1 },
      { expression: '#requeues > :zero', values: { ':zero': 0 } },
    );
    await this.table.delete(keys.requeueGroup(ref.repoId, ref.pullRequest, ref.groupSha));
  }
}
