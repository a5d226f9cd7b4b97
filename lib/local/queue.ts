/**
 * An in-process queue with the Amazon SQS FIFO semantics the worker and the reconciler rely
 * on: per-group order with one batch of a group in flight at a time, the deduplication
 * window, the visibility timeout with receipt handles that go stale, the receive count, and
 * a dead-letter queue after too many receives, with its redrive. Time is read from an
 * injectable clock and evaluated lazily, so the queue owns no timers and a test can move it.
 * With a journal (queue-journal.ts) every change is also written to disk, and `restore` rebuilds
 * the queue from what was written after the process died.
 */
import { SETTINGS } from '../config/settings-schema.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import type { RunMessage } from '../model.js';
import type { RunQueue } from '../webhook/run-queue.js';
import { checkBody, checkId, checkIntegerInRange } from './queue-input.js';
import type { MessageSnapshot, QueueJournal } from './queue-snapshot.js';

export { checkIntegerInRange, type QueueErrorCode, QueueInputError } from './queue-input.js';
import { DEDUPLICATION_WINDOW_MS, MAX_RECEIVE_BATCH, MAX_VISIBILITY_TIMEOUT_SECONDS } from '../webhook/sqs-limits.js';

export interface QueueOptions {
  /** Names the queue in its ARN and in the poller's errors. */
  name: string;
  /** Default 30 s. 0 makes every receipt handle expire on arrival, as on a real FIFO queue. */
  visibilityTimeoutMs?: number;
  /** Receives allowed before the message moves to the dead-letter queue; default 5. */
  maxReceiveCount?: number;
  /** The queue's clock, in milliseconds; Date.now by default. */
  now?: () => number;
  /** Where every change of a message is written; nothing is kept across restarts without one. */
  journal?: QueueJournal;
}

/** What `restore` rebuilt. */
export interface RestoredQueue {
  readonly messages: number;
  /** Messages a consumer of the dead process held: visible again at once, their receives counted. */
  readonly released: number;
  /** Messages hidden by a change of visibility (a deferral): they come back when it ends, as before. */
  readonly deferred: number;
  readonly deadLetters: number;
}

export interface SendInput {
  body: string;
  groupId: string;
  deduplicationId: string;
}

export interface SendResult {
  messageId: string;
  /** The deduplication id was seen within the window: SQS accepts the call and keeps one copy. */
  duplicate: boolean;
}

export interface DeadLetter {
  record: SQSRecord;
  reason: string;
}

export interface QueueStats {
  visible: number;
  inFlight: number;
  deadLetters: number;
  /** Messages accepted by `send` (duplicates excluded). */
  sent: number;
  duplicatesDropped: number;
}

const MAX_VISIBILITY_TIMEOUT_MS = MAX_VISIBILITY_TIMEOUT_SECONDS * 1000;

/** A message as the queue keeps it between send and delete. */
interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly groupId: string;
  readonly deduplicationId: string;
  /** Send order; a redrive gives a new one, as the message joins the tail again. */
  order: number;
  /** Earliest time a receive may return it (end of its visibility timeout). */
  visibleAt: number;
  receiveCount: number;
  receiptHandle: string | undefined;
  /** Hidden by ChangeMessageVisibility since its last receive, rather than held by a consumer. */
  deferred: boolean;
  readonly dedupUntil: number;
}

/** A handle no consumer holds: a restored deferral stays hidden until it ends, and nobody can delete it. */
const RESTORED_HANDLE = 'restored';

export class EmbeddedFifoQueue {
  readonly name: string;
  readonly arn: string;
  readonly deadLetters: DeadLetter[] = [];

  /** Receives allowed before a message moves to the dead-letter queue. */
  readonly maxReceiveCount: number;

  private readonly visibilityTimeoutMs: number;
  private readonly now: () => number;

  /** Per group, messages in send order; a group's entry is removed when empty. */
  private readonly groups = new Map<string, StoredMessage[]>();
  private readonly byId = new Map<string, StoredMessage>();
  private readonly byHandle = new Map<string, StoredMessage>();
  /** Insertion order is expiry order, because the window is fixed and time only moves forward. */
  private readonly dedup = new Map<string, { messageId: string; expiresAt: number }>();
  private readonly deadStore = new Map<string, StoredMessage>();
  /** Deleted messages whose deduplication id is still remembered: what a journal keeps of them. */
  private readonly deleted = new Map<string, { deduplicationId: string; expiresAt: number }>();
  private readonly journal: QueueJournal | undefined;
  private nextOrder = 0;
  private sentCount = 0;
  private duplicateCount = 0;

  constructor(opts: QueueOptions) {
    this.name = opts.name;
    this.arn = `arn:aws:sqs:local:000000000000:${opts.name}`;
    this.visibilityTimeoutMs = opts.visibilityTimeoutMs ?? 30_000;
    this.maxReceiveCount = opts.maxReceiveCount ?? SETTINGS.maxReceiveCount.default;
    checkIntegerInRange('visibilityTimeoutMs', this.visibilityTimeoutMs, 0, MAX_VISIBILITY_TIMEOUT_MS);
    checkIntegerInRange('maxReceiveCount', this.maxReceiveCount, 1, 1000);
    this.now = opts.now ?? Date.now;
    this.journal = opts.journal;
  }

  send(input: SendInput): SendResult {
    checkBody(input.body);
    checkId('MessageGroupId', input.groupId);
    checkId('MessageDeduplicationId', input.deduplicationId);

    const now = this.now();
    this.pruneDedup(now);
    const seen = this.dedup.get(input.deduplicationId);
    if (seen) {
      // SQS accepts the call and answers with the original message's id. Noted again, so a
      // caller that waits for the journal waits for the original to be on disk.
      this.duplicateCount++;
      this.changed(seen.messageId);
      return { messageId: seen.messageId, duplicate: true };
    }

    const message: StoredMessage = {
      messageId: randomUUID(),
      body: input.body,
      groupId: input.groupId,
      deduplicationId: input.deduplicationId,
      order: ++this.nextOrder,
      visibleAt: now,
      receiveCount: 0,
      receiptHandle: undefined,
      deferred: false,
      dedupUntil: now + DEDUPLICATION_WINDOW_MS,
    };
    this.enqueue(message);
    this.sentCount++;
    this.dedup.set(input.deduplicationId, { messageId: message.messageId, expiresAt: message.dedupUntil });
    this.changed(message.messageId);
    return { messageId: message.messageId, duplicate: false };
  }

  /**
   * Like ReceiveMessage on a FIFO queue: oldest group first, as many
   * consecutive messages of a group as fit, and no group with a message in
   * flight. Defaults to one message, as ReceiveMessage does.
   */
  receive(max = 1): SQSRecord[] {
    checkIntegerInRange('MaxNumberOfMessages', max, 1, MAX_RECEIVE_BATCH);
    const now = this.now();
    const out: SQSRecord[] = [];
    const ordered = [...this.groups.values()].sort((a, b) => (a[0]?.order ?? 0) - (b[0]?.order ?? 0));
    for (const group of ordered) {
      if (out.length >= max) break;
      if (group.some((m) => isInFlight(m, now))) continue;
      let i = 0;
      while (i < group.length && out.length < max) {
        const message = group[i] as StoredMessage;
        if (message.receiveCount >= this.maxReceiveCount) {
          this.moveToDeadLetters(message);
          continue;
        }
        out.push(this.deliver(message, now));
        i++;
      }
    }
    return out;
  }

  /** Refuses a handle that is stale (message received again since) or expired, as FIFO queues do. */
  delete(receiptHandle: string): boolean {
    const message = this.validHandle(receiptHandle);
    if (!message) return false;
    this.byHandle.delete(receiptHandle);
    this.remove(message);
    if (message.dedupUntil > this.now()) {
      this.deleted.set(message.messageId, { deduplicationId: message.deduplicationId, expiresAt: message.dedupUntil });
    }
    this.changed(message.messageId);
    return true;
  }

  changeVisibility(receiptHandle: string, timeoutMs: number): boolean {
    checkIntegerInRange('VisibilityTimeout (ms)', timeoutMs, 0, MAX_VISIBILITY_TIMEOUT_MS);
    const message = this.validHandle(receiptHandle);
    if (!message) return false;
    message.visibleAt = this.now() + timeoutMs;
    message.deferred = true;
    this.changed(message.messageId);
    return true;
  }

  /** Moves every dead letter back to the tail of its group, receive count reset, like a DLQ redrive. */
  redrive(): number {
    const now = this.now();
    let moved = 0;
    for (const { record } of this.deadLetters) {
      const message = this.deadStore.get(record.messageId);
      if (!message) continue;
      message.order = ++this.nextOrder;
      message.visibleAt = now;
      message.receiveCount = 0;
      message.receiptHandle = undefined;
      message.deferred = false;
      this.enqueue(message);
      this.changed(message.messageId);
      moved++;
    }
    this.deadLetters.length = 0;
    this.deadStore.clear();
    return moved;
  }

  stats(): QueueStats {
    const now = this.now();
    let inFlight = 0;
    for (const message of this.byId.values()) if (isInFlight(message, now)) inFlight++;
    return {
      visible: this.byId.size - inFlight,
      inFlight,
      deadLetters: this.deadLetters.length,
      sent: this.sentCount,
      duplicatesDropped: this.duplicateCount,
    };
  }

  /** When the next hidden message (in flight, or deferred) becomes visible; undefined when none is hidden. */
  nextVisibleAt(): number | undefined {
    const now = this.now();
    let next: number | undefined;
    for (const message of this.byId.values()) {
      if (isInFlight(message, now) && (next === undefined || message.visibleAt < next)) next = message.visibleAt;
    }
    return next;
  }

  /** Visible + in flight; dead letters are not counted. */
  size(): number {
    return this.byId.size;
  }

  /** The bodies of every message visible or in flight. */
  bodies(): string[] {
    return [...this.byId.values()].map((m) => m.body);
  }

  /** Every message as a journal keeps it: visible, in flight, dead, and deleted within the deduplication window. */
  snapshots(): MessageSnapshot[] {
    const ids = [...this.byId.keys(), ...this.deadStore.keys(), ...this.deleted.keys()];
    return ids.map((id) => this.snapshot(id)).filter((snap) => snap !== undefined);
  }

  /** Resolves once the journal holds every change made so far to these messages (at once without a journal). */
  persisted(messageIds: readonly string[]): Promise<void> {
    return this.journal ? this.journal.flush(messageIds) : Promise.resolve();
  }

  /**
   * Rebuilds an empty queue from a journal's snapshots, as they were when the last process
   * stopped. A message that process had received and still held is visible at once (no consumer
   * can hold it any more; the receive still counts); a deferred one stays hidden until its
   * deferral ends; dead letters stay dead; deduplication ids are remembered for their window.
   */
  restore(snapshots: readonly MessageSnapshot[]): RestoredQueue {
    if (this.byId.size > 0 || this.deadLetters.length > 0 || this.dedup.size > 0) {
      throw new Error(`queue ${this.name}: restore needs an empty queue`);
    }
    const now = this.now();
    let released = 0;
    let deferred = 0;
    for (const snap of [...snapshots].sort((a, b) => a.order - b.order)) {
      this.nextOrder = Math.max(this.nextOrder, snap.order);
      if (snap.status === 'deleted' || snap.body === undefined) {
        if (snap.dedupUntil > now) {
          this.deleted.set(snap.messageId, { deduplicationId: snap.deduplicationId, expiresAt: snap.dedupUntil });
        } else this.changed(snap.messageId);
        continue;
      }
      const hidden = snap.status === 'deferred' && snap.visibleAt > now;
      const message: StoredMessage = {
        messageId: snap.messageId,
        body: snap.body,
        groupId: snap.groupId,
        deduplicationId: snap.deduplicationId,
        order: snap.order,
        visibleAt: snap.status === 'received' ? now : snap.visibleAt,
        receiveCount: snap.receiveCount,
        receiptHandle: hidden ? RESTORED_HANDLE : undefined,
        deferred: hidden,
        dedupUntil: snap.dedupUntil,
      };
      if (snap.status === 'dead') {
        this.deadStore.set(message.messageId, message);
        this.deadLetters.push({ record: this.toRecord(message), reason: snap.deadReason ?? 'dead-lettered' });
        continue;
      }
      if (snap.status === 'received') {
        released++;
        this.changed(message.messageId);
      }
      if (hidden) deferred++;
      this.enqueue(message);
    }
    // The window is fixed, so expiry order is the order the ids were first seen in.
    const remembered = snapshots
      .filter((snap) => snap.dedupUntil > now)
      .sort((a, b) => a.dedupUntil - b.dedupUntil || a.order - b.order);
    for (const snap of remembered) {
      this.dedup.set(snap.deduplicationId, { messageId: snap.messageId, expiresAt: snap.dedupUntil });
    }
    return { messages: this.byId.size, released, deferred, deadLetters: this.deadLetters.length };
  }

  private deliver(message: StoredMessage, now: number): SQSRecord {
    if (message.receiptHandle !== undefined) this.byHandle.delete(message.receiptHandle);
    const receiptHandle = randomBytes(48).toString('base64');
    message.receiptHandle = receiptHandle;
    this.byHandle.set(receiptHandle, message);
    message.receiveCount++;
    message.visibleAt = now + this.visibilityTimeoutMs;
    message.deferred = false;
    this.changed(message.messageId);
    return this.toRecord(message);
  }

  private moveToDeadLetters(message: StoredMessage): void {
    if (message.receiptHandle !== undefined) this.byHandle.delete(message.receiptHandle);
    this.remove(message);
    this.deadStore.set(message.messageId, message);
    this.deadLetters.push({
      record: this.toRecord(message),
      reason: `maxReceiveCount ${this.maxReceiveCount} exceeded: received ${message.receiveCount} times without being deleted`,
    });
    this.changed(message.messageId);
  }

  /**
   * The record as Lambda's SQS event source hands it to a handler, with what the worker reads:
   * the receive count and the group. Attributes the record type requires but nothing reads
   * (timestamps, sender, body digest) are left empty.
   */
  private toRecord(message: StoredMessage): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: message.receiptHandle ?? '',
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: '',
        SenderId: '',
        ApproximateFirstReceiveTimestamp: '',
        MessageGroupId: message.groupId,
        MessageDeduplicationId: message.deduplicationId,
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: this.arn,
      awsRegion: 'local',
    };
  }

  private validHandle(receiptHandle: string): StoredMessage | undefined {
    const message = this.byHandle.get(receiptHandle);
    if (!message || message.receiptHandle !== receiptHandle) return undefined;
    return isInFlight(message, this.now()) ? message : undefined;
  }

  private enqueue(message: StoredMessage): void {
    const group = this.groups.get(message.groupId);
    if (group) group.push(message);
    else this.groups.set(message.groupId, [message]);
    this.byId.set(message.messageId, message);
  }

  private remove(message: StoredMessage): void {
    this.byId.delete(message.messageId);
    const group = this.groups.get(message.groupId);
    if (!group) return;
    const index = group.indexOf(message);
    if (index >= 0) group.splice(index, 1);
    if (group.length === 0) this.groups.delete(message.groupId);
  }

  private pruneDedup(now: number): void {
    for (const [id, entry] of this.dedup) {
      if (entry.expiresAt > now) break;
      this.dedup.delete(id);
      if (this.deleted.delete(entry.messageId)) this.changed(entry.messageId);
    }
  }

  private changed(messageId: string): void {
    this.journal?.changed(messageId, () => this.snapshot(messageId));
  }

  /** The message as a journal writes it; undefined once nothing of it needs keeping. */
  private snapshot(messageId: string): MessageSnapshot | undefined {
    const live = this.byId.get(messageId);
    const dead = live ? undefined : this.deadStore.get(messageId);
    const m = live ?? dead;
    if (m) {
      // Not read from the clock: a restart compares `visibleAt` with its own.
      const status = dead ? 'dead' : m.receiptHandle === undefined ? 'queued' : m.deferred ? 'deferred' : 'received';
      const reason = dead && this.deadLetters.find((d) => d.record.messageId === messageId)?.reason;
      return {
        messageId,
        body: m.body,
        groupId: m.groupId,
        deduplicationId: m.deduplicationId,
        order: m.order,
        visibleAt: m.visibleAt,
        receiveCount: m.receiveCount,
        status,
        dedupUntil: m.dedupUntil,
        ...(reason && { deadReason: reason }),
      };
    }
    const gone = this.deleted.get(messageId);
    if (!gone) return undefined;
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
}

/** The run queue on the embedded queue, as `sqsRunQueue` is on SQS: the message as JSON. */
export const embeddedRunQueue = (queue: EmbeddedFifoQueue): RunQueue => ({
  send: async (message: RunMessage, groupId: string, deduplicationId: string) => {
    const { messageId } = queue.send({ body: JSON.stringify(message), groupId, deduplicationId });
    // With a journal, the send is done once the message is on disk: only then may the intake answer 2xx.
    await queue.persisted([messageId]);
  },
});

function isInFlight(message: StoredMessage, now: number): boolean {
  return message.receiptHandle !== undefined && message.visibleAt > now;
}
