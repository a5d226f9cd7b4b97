/**
 * Rebuilding the embedded queue from a journal's snapshots, as they were when the last process
 * stopped: what comes back visible, what stays hidden, what stays dead, and which deduplication
 * ids are still remembered.
 */
import type { DeadLetter, DeadLetterQueue } from './dead-letters.js';
import type { DeduplicationWindow } from './dedup.js';
import type { MessageGroups } from './groups.js';
import { RESTORED_HANDLE, type StoredMessage } from './message.js';
import type { MessageSnapshot } from './snapshot.js';

/** What `restore` rebuilt. */
export interface RestoredQueue {
  readonly messages: number;
  /** Messages a consumer of the dead process held: visible again at once, their receives counted. */
  readonly released: number;
  /** Messages hidden by a change of visibility (a deferral): they come back when it ends, as before. */
  readonly deferred: number;
  readonly deadLetters: number;
}

/** The queue's stores, empty, that a restore fills. */
export interface RestoreTarget {
  readonly live: MessageGroups;
  readonly dead: DeadLetterQueue;
  readonly dedup: DeduplicationWindow;
  /** The record a dead letter is kept as. */
  record(message: StoredMessage): DeadLetter['record'];
  /** Notes a change for the journal. */
  changed(messageId: string): void;
}

/**
 * The message a snapshot of a live or dead one restores. One the dead process had received and
 * still held is visible at once (no consumer can hold it any more; the receive still counts); a
 * deferred one stays hidden until its deferral ends, held by no consumer.
 */
function restoredMessage(snap: MessageSnapshot & { readonly body: string }, now: number): StoredMessage {
  const hidden = snap.status === 'deferred' && snap.visibleAt > now;
  return {
    messageId: snap.messageId,
    body: snap.body,
    groupId: snap.groupId,
    deduplicationId: snap.deduplicationId,
    order: snap.order,
    visibleAt: snap.status === 'received' ? now : snap.visibleAt,
    receiveCount: snap.receiveCount,
    firstReceivedAt: snap.firstReceivedAt,
    receiptHandle: hidden ? RESTORED_HANDLE : undefined,
    deferred: hidden,
    dedupUntil: snap.dedupUntil,
  };
}

/**
 * Fills the queue's empty stores from the snapshots: live messages as `restoredMessage` says,
 * dead letters still dead, deduplication ids remembered for their window. Answers what was
 * rebuilt and the last send order seen.
 */
export function restoreInto(
  target: RestoreTarget,
  snapshots: readonly MessageSnapshot[],
  now: number,
): RestoredQueue & { readonly lastOrder: number } {
  // Deleted messages past their window: the journal forgets them.
  for (const messageId of target.dedup.restore(snapshots, now)) target.changed(messageId);
  let lastOrder = 0;
  let released = 0;
  let deferred = 0;
  for (const snap of [...snapshots].sort((a, b) => a.order - b.order)) {
    lastOrder = Math.max(lastOrder, snap.order);
    if (snap.status === 'deleted' || snap.body === undefined) continue;
    const message = restoredMessage({ ...snap, body: snap.body }, now);
    if (snap.status === 'dead') {
      target.dead.add(message, target.record(message), snap.deadReason ?? 'dead-lettered');
      continue;
    }
    target.live.add(message);
    // Written back as it is now (queued: no consumer holds it), once it is in the queue.
    if (snap.status === 'received') {
      released++;
      target.changed(message.messageId);
    }
    if (message.deferred) deferred++;
  }
  return { messages: target.live.size, released, deferred, deadLetters: target.dead.letters.length, lastOrder };
}
