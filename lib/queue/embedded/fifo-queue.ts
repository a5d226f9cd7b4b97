/**
 * An in-process queue with the Amazon SQS FIFO semantics the worker and the reconciler rely
 * on: per-group order with one batch of a group in flight at a time, the deduplication
 * window, the visibility timeout with receipt handles that go stale, the receive count, and
 * a dead-letter queue after too many receives, with its redrive. Time is read from an
 * injectable clock and evaluated lazily, so the queue owns no timers and a test can move it.
 * With a journal (journal.ts) every change is also written to disk, and `restore` rebuilds
 * the queue from what was written after the process died.
 *
 * A message's state and its transitions are in message.ts, where live messages are kept
 * in groups.ts, the dead ones in dead-letters.ts, the deduplication window in dedup.ts, what a
 * journal writes of each in snapshot.ts, how the queue is rebuilt from it in restore.ts, and
 * the `Queue` contract over it (sends, deferrals, deletes as promises) in queue.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { SETTINGS } from '../../config/settings-schema.js';
import type { SendInput } from '../run-queue.js';
import { DEDUPLICATION_WINDOW_MS, MAX_RECEIVE_BATCH, MAX_VISIBILITY_TIMEOUT_SECONDS } from '../sqs-limits.js';
import { type DeadLetter, DeadLetterQueue } from './dead-letters.js';
import { DeduplicationWindow } from './dedup.js';
import { MessageGroups } from './groups.js';
import { checkBody, checkId, checkIntegerInRange, checkVisibilityCeiling } from './input.js';
import { isInFlight, markDeferred, markReceived, markRedriven, sqsRecordOf, type StoredMessage } from './message.js';
import { restoreInto, type RestoredQueue } from './restore.js';
import { deletedSnapshot, type MessageSnapshot, type QueueJournal, snapshotOf } from './snapshot.js';

/** An embedded queue's attributes, as an SQS FIFO queue's would be set, and where it keeps its changes. */
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
  /** Told of each message as it moves to the dead-letter queue (not of one a restore finds dead already). */
  onDeadLetter?: (letter: DeadLetter) => void;
}

/** What a send did: the message's id, and whether its deduplication id made it a duplicate. */
export interface SendResult {
  messageId: string;
  /** The deduplication id was seen within the window: SQS accepts the call and keeps one copy. */
  duplicate: boolean;
}

/** What the queue holds and has taken, for the health route and tests. */
export interface QueueStats {
  visible: number;
  inFlight: number;
  deadLetters: number;
  /** Messages accepted by `send` (duplicates excluded). */
  sent: number;
  duplicatesDropped: number;
}

const MAX_VISIBILITY_TIMEOUT_MS = MAX_VISIBILITY_TIMEOUT_SECONDS * 1000;

/** The local runtime's FIFO queue with SQS's semantics, synchronous and clock-driven; callers use it through its contract (queue.ts). */
export class EmbeddedFifoQueue {
  readonly name: string;
  readonly arn: string;
  /** Receives allowed before a message moves to the dead-letter queue. */
  readonly maxReceiveCount: number;

  private readonly visibilityTimeoutMs: number;
  private readonly now: () => number;
  private readonly live = new MessageGroups();
  private readonly dead = new DeadLetterQueue();
  private readonly dedup = new DeduplicationWindow((messageId) => this.changed(messageId));
  private readonly journal: QueueJournal | undefined;
  private readonly onDeadLetter: ((letter: DeadLetter) => void) | undefined;
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
    this.onDeadLetter = opts.onDeadLetter;
  }

  /** The dead-letter queue, in the order the messages died. */
  get deadLetters(): readonly DeadLetter[] {
    return this.dead.letters;
  }

  send(input: SendInput): SendResult {
    checkBody(input.body);
    checkId('MessageGroupId', input.groupId);
    checkId('MessageDeduplicationId', input.deduplicationId);

    const now = this.now();
    const seen = this.dedup.seen(input.deduplicationId, now);
    if (seen !== undefined) {
      // SQS accepts the call and answers with the original message's id. Noted again, so a
      // caller that waits for the journal waits for the original to be on disk.
      this.duplicateCount++;
      this.changed(seen);
      return { messageId: seen, duplicate: true };
    }

    const message: StoredMessage = {
      messageId: randomUUID(),
      body: input.body,
      groupId: input.groupId,
      deduplicationId: input.deduplicationId,
      order: ++this.nextOrder,
      visibleAt: now,
      receiveCount: 0,
      firstReceivedAt: undefined,
      receiptHandle: undefined,
      deferred: false,
      dedupUntil: now + DEDUPLICATION_WINDOW_MS,
    };
    this.live.add(message);
    this.sentCount++;
    this.dedup.remember(input.deduplicationId, message.messageId, message.dedupUntil);
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
    for (const group of this.live.oldestFirst()) {
      if (out.length >= max) break;
      if (group.some((m) => isInFlight(m, now))) continue;
      // Its own copy of the group: a message that dies leaves the live group, not this walk.
      for (const message of [...group]) {
        if (out.length >= max) break;
        if (message.receiveCount >= this.maxReceiveCount) this.moveToDeadLetters(message);
        else out.push(this.deliver(message, now));
      }
    }
    return out;
  }

  /** Refuses a handle that is stale (message received again since) or expired, as FIFO queues do. */
  delete(receiptHandle: string): boolean {
    const message = this.validHandle(receiptHandle);
    if (!message) return false;
    this.live.remove(message);
    if (message.dedupUntil > this.now()) this.dedup.rememberDeleted(message);
    this.changed(message.messageId);
    return true;
  }

  /**
   * Refuses, as SQS does, a handle that is stale or expired (false), and a timeout that would
   * end past 12 hours from the message's first receive (a QueueRefusedError).
   */
  changeVisibility(receiptHandle: string, timeoutMs: number): boolean {
    checkIntegerInRange('VisibilityTimeout (ms)', timeoutMs, 0, MAX_VISIBILITY_TIMEOUT_MS);
    const message = this.validHandle(receiptHandle);
    if (!message) return false;
    const now = this.now();
    checkVisibilityCeiling(timeoutMs, now, message.firstReceivedAt ?? now);
    markDeferred(message, now + timeoutMs);
    this.changed(message.messageId);
    return true;
  }

  /** Moves every dead letter back to the tail of its group, receive count reset, like a DLQ redrive. */
  redrive(): number {
    const now = this.now();
    const messages = this.dead.drain();
    for (const message of messages) {
      markRedriven(message, ++this.nextOrder, now);
      this.live.add(message);
      this.changed(message.messageId);
    }
    return messages.length;
  }

  stats(): QueueStats {
    const inFlight = this.live.inFlight(this.now());
    return {
      visible: this.live.size - inFlight,
      inFlight,
      deadLetters: this.dead.letters.length,
      sent: this.sentCount,
      duplicatesDropped: this.duplicateCount,
    };
  }

  /** When the next hidden message (in flight, or deferred) becomes visible; undefined when none is hidden. */
  nextVisibleAt(): number | undefined {
    return this.live.nextVisibleAt(this.now());
  }

  /** Visible + in flight; dead letters are not counted. */
  size(): number {
    return this.live.size;
  }

  /** The bodies of every message visible or in flight. */
  bodies(): string[] {
    return [...this.live.messages()].map((m) => m.body);
  }

  /** Every message as a journal keeps it: visible, in flight, dead, and deleted within the deduplication window. */
  snapshots(): MessageSnapshot[] {
    const ids = [...this.live.ids(), ...this.dead.ids(), ...this.dedup.deletedIds()];
    return ids.map((id) => this.snapshot(id)).filter((snap) => snap !== undefined);
  }

  /** Resolves once the journal holds every change made so far to these messages (at once without a journal). */
  persisted(messageIds: readonly string[]): Promise<void> {
    return this.journal ? this.journal.flush(messageIds) : Promise.resolve();
  }

  /** Rebuilds an empty queue from a journal's snapshots (restore.ts). */
  restore(snapshots: readonly MessageSnapshot[]): RestoredQueue {
    if (this.live.size > 0 || this.dead.letters.length > 0 || this.dedup.size > 0) {
      throw new Error(`queue ${this.name}: restore needs an empty queue`);
    }
    const target = {
      live: this.live,
      dead: this.dead,
      dedup: this.dedup,
      record: (message: StoredMessage) => sqsRecordOf(message, this.arn),
      changed: (messageId: string) => this.changed(messageId),
    };
    const { lastOrder, ...restored } = restoreInto(target, snapshots, this.now());
    this.nextOrder = Math.max(this.nextOrder, lastOrder);
    return restored;
  }

  private deliver(message: StoredMessage, now: number): SQSRecord {
    const receiptHandle = randomBytes(48).toString('base64');
    this.live.hand(message, receiptHandle);
    markReceived(message, receiptHandle, now, now + this.visibilityTimeoutMs);
    this.changed(message.messageId);
    return sqsRecordOf(message, this.arn);
  }

  private moveToDeadLetters(message: StoredMessage): void {
    this.live.remove(message);
    const letter: DeadLetter = {
      record: sqsRecordOf(message, this.arn),
      reason: `maxReceiveCount ${this.maxReceiveCount} exceeded: received ${message.receiveCount} times without being deleted`,
    };
    this.dead.add(message, letter.record, letter.reason);
    this.changed(message.messageId);
    this.onDeadLetter?.(letter);
  }

  private validHandle(receiptHandle: string): StoredMessage | undefined {
    const message = this.live.held(receiptHandle);
    return message && isInFlight(message, this.now()) ? message : undefined;
  }

  private changed(messageId: string): void {
    this.journal?.changed(messageId, () => this.snapshot(messageId));
  }

  /** The message as a journal writes it; undefined once nothing of it needs keeping. */
  private snapshot(messageId: string): MessageSnapshot | undefined {
    const live = this.live.get(messageId);
    if (live) return snapshotOf(live);
    const dead = this.dead.get(messageId);
    if (dead) return snapshotOf(dead, { reason: this.dead.reasonOf(messageId) });
    const gone = this.dedup.deletedMessage(messageId);
    return gone && deletedSnapshot(messageId, gone);
  }
}
