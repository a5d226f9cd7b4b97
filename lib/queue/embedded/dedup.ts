/**
 * The embedded queue's deduplication window: each deduplication id is remembered for five
 * minutes from its first send, whatever became of its message, and a deleted message is kept
 * (its id alone) for as long as its deduplication id is, so a journal can keep it too.
 */
import type { DeletedMessage, StoredMessage } from './message.js';
import type { MessageSnapshot } from './snapshot.js';

interface Remembered {
  readonly messageId: string;
  readonly expiresAt: number;
}

/** The deduplication ids seen in the last five minutes, each with the message it first named. */
export class DeduplicationWindow {
  /** Insertion order is expiry order, because the window is fixed and time only moves forward. */
  private readonly ids = new Map<string, Remembered>();
  private readonly deleted = new Map<string, DeletedMessage>();

  /** @param forgotten called with a deleted message's id once nothing of it needs keeping. */
  constructor(private readonly forgotten: (messageId: string) => void) {}

  get size(): number {
    return this.ids.size;
  }

  /** The id of the message first sent with this deduplication id, while the window holds it. */
  seen(deduplicationId: string, now: number): string | undefined {
    this.prune(now);
    return this.ids.get(deduplicationId)?.messageId;
  }

  remember(deduplicationId: string, messageId: string, expiresAt: number): void {
    this.ids.set(deduplicationId, { messageId, expiresAt });
  }

  /** A deleted message, kept while its deduplication id is remembered. */
  rememberDeleted(message: Pick<StoredMessage, 'messageId' | 'deduplicationId' | 'dedupUntil'>): void {
    this.deleted.set(message.messageId, { deduplicationId: message.deduplicationId, expiresAt: message.dedupUntil });
  }

  deletedMessage(messageId: string): DeletedMessage | undefined {
    return this.deleted.get(messageId);
  }

  deletedIds(): IterableIterator<string> {
    return this.deleted.keys();
  }

  /**
   * Takes back what a journal kept: each deduplication id still in its window, and each deleted
   * message with it. Answers the deleted messages whose window has passed: nothing of them is
   * left to keep.
   */
  restore(snapshots: readonly MessageSnapshot[], now: number): string[] {
    const expired: string[] = [];
    for (const snap of snapshots) {
      if (snap.status !== 'deleted' && snap.body !== undefined) continue;
      if (snap.dedupUntil > now) {
        this.deleted.set(snap.messageId, { deduplicationId: snap.deduplicationId, expiresAt: snap.dedupUntil });
      } else expired.push(snap.messageId);
    }
    // The window is fixed, so expiry order is the order the ids were first seen in.
    const remembered = snapshots
      .filter((snap) => snap.dedupUntil > now)
      .sort((a, b) => a.dedupUntil - b.dedupUntil || a.order - b.order);
    for (const snap of remembered) this.remember(snap.deduplicationId, snap.messageId, snap.dedupUntil);
    return expired;
  }

  private prune(now: number): void {
    for (const [id, entry] of this.ids) {
      if (entry.expiresAt > now) break;
      this.ids.delete(id);
      if (this.deleted.delete(entry.messageId)) this.forgotten(entry.messageId);
    }
  }
}
