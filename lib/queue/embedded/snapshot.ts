/**
 * What the embedded queue keeps of a message on disk, and the journal it writes it through:
 * enough to rebuild the queue, receive counts, deferrals and dead letters included, after the
 * process died at any instant.
 */
import type { DeletedMessage, StoredMessage } from './message.js';

/**
 * `queued`: visible once `visibleAt` passes. `received`: a consumer held it (its visibility
 * timeout running). `deferred`: hidden by a change of visibility until `visibleAt`. `dead`: in
 * the dead-letter queue. `deleted`: gone, its deduplication id remembered until `dedupUntil`.
 */
export type MessageStatus = 'queued' | 'received' | 'deferred' | 'dead' | 'deleted';

/** One message as the journal writes it: what a restore needs to put it back as it stood. */
export interface MessageSnapshot {
  readonly messageId: string;
  /** Absent once the message is deleted. */
  readonly body?: string;
  readonly groupId: string;
  readonly deduplicationId: string;
  /** Send order (a redrive gives a new one). */
  readonly order: number;
  readonly visibleAt: number;
  readonly receiveCount: number;
  /** When it was first received; absent until then. */
  readonly firstReceivedAt?: number;
  readonly status: MessageStatus;
  /** End of the deduplication window of its id. */
  readonly dedupUntil: number;
  readonly deadReason?: string;
}

/** Where the queue writes each change of a message, and how it waits until they are on disk. */
export interface QueueJournal {
  /**
   * A message changed. The journal reads `snapshot()` when it writes, so changes that come
   * while a write is under way are written together; undefined means nothing is left to keep.
   */
  changed(messageId: string, snapshot: () => MessageSnapshot | undefined): void;
  /** Resolves once every change noted so far for these messages is written; rejects if a write failed. */
  flush(messageIds: readonly string[]): Promise<void>;
}

/**
 * A live or dead message as a journal writes it. Not read from the clock: a restart compares
 * `visibleAt` with its own.
 */
export function snapshotOf(message: StoredMessage, dead?: { readonly reason: string | undefined }): MessageSnapshot {
  const status: MessageStatus = dead
    ? 'dead'
    : message.receiptHandle === undefined
      ? 'queued'
      : message.deferred
        ? 'deferred'
        : 'received';
  return {
    messageId: message.messageId,
    body: message.body,
    groupId: message.groupId,
    deduplicationId: message.deduplicationId,
    order: message.order,
    visibleAt: message.visibleAt,
    receiveCount: message.receiveCount,
    ...(message.firstReceivedAt !== undefined && { firstReceivedAt: message.firstReceivedAt }),
    status,
    dedupUntil: message.dedupUntil,
    ...(dead?.reason && { deadReason: dead.reason }),
  };
}

/** A deleted message as a journal writes it: its deduplication id, until the window forgets it. */
export function deletedSnapshot(messageId: string, gone: DeletedMessage): MessageSnapshot {
  return {
    messageId,
    groupId: '',
    deduplicationId: gone.deduplicationId,
    order: 0,
    visibleAt: 0,
    receiveCount: 0,
    status: 'deleted',
    dedupUntil: gone.expiresAt,
  };
}
