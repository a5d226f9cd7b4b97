/**
 * An in-process queue with the semantics of an Amazon SQS FIFO queue, for the
 * local runtime: deduplication window, strict per-group order, visibility
 * timeout, receipt handles that go stale, and a dead-letter queue fed by a
 * redrive policy. Time is read from an injectable clock and evaluated lazily,
 * so the queue itself owns no timers.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  MAX_DELAY_SECONDS,
  MAX_RECEIVE_BATCH,
  MAX_VISIBILITY_TIMEOUT_MS,
  checkBody,
  checkId,
  checkIntegerInRange,
  checkQueueName,
} from './queue-validate.js';
import { type StoredMessage, toRecord } from './queue-record.js';
import type { DeadLetter, QueueOptions, QueueStats, SendInput, SendResult, SqsRecordLike } from './queue-types.js';

export type { DeadLetter, QueueOptions, QueueStats, SendInput, SendResult, SqsRecordLike } from './queue-types.js';
export { QueueInputError, type QueueErrorCode } from './queue-validate.js';
export { QueuePoller, type QueuePollerOptions, type SqsBatchHandler } from './queue-poller.js';

const DEFAULT_VISIBILITY_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RECEIVE_COUNT = 5;
const DEFAULT_DEDUP_WINDOW_MS = 5 * 60 * 1000;
// Real sequence numbers are 20-digit decimals that only grow.
const SEQUENCE_BASE = 18_000_000_000_000_000_000n;

export class EmbeddedFifoQueue {
  readonly name: string;
  readonly arn: string;
  readonly deadLetters: DeadLetter[] = [];

  private readonly visibilityTimeoutMs: number;
  private readonly maxReceiveCount: number;
  private readonly dedupWindowMs: number;
  private readonly maxMessageBytes: number;
  private readonly now: () => number;

  /** Per group, messages in sequence order; a group's entry is removed when empty. */
  private readonly groups = new Map<string, StoredMessage[]>();
  private readonly byId = new Map<string, StoredMessage>();
  private readonly byHandle = new Map<string, StoredMessage>();
  /** Insertion order is expiry order, because the window is fixed and time only moves forward. */
  private readonly dedup = new Map<string, { messageId: string; sequenceNumber: string; expiresAt: number }>();
  private readonly deadStore = new Map<string, StoredMessage>();
  private nextSeq = 0n;
  private sentCount = 0;
  private duplicateCount = 0;

  constructor(opts: QueueOptions) {
    checkQueueName(opts.name);
    this.name = opts.name;
    this.arn = `arn:aws:sqs:local:000000000000:${opts.name}`;
    this.visibilityTimeoutMs = opts.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS;
    this.maxReceiveCount = opts.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT;
    checkIntegerInRange('visibilityTimeoutMs', this.visibilityTimeoutMs, 0, MAX_VISIBILITY_TIMEOUT_MS);
    checkIntegerInRange('maxReceiveCount', this.maxReceiveCount, 1, 1000);
    this.dedupWindowMs = opts.deduplicationWindowMs ?? DEFAULT_DEDUP_WINDOW_MS;
    checkIntegerInRange('deduplicationWindowMs', this.dedupWindowMs, 1, Number.MAX_SAFE_INTEGER);
    this.maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.now = opts.now ?? Date.now;
  }

  send(input: SendInput): SendResult {
    checkBody(input.body, this.maxMessageBytes);
    checkId('MessageGroupId', input.groupId);
    checkId('MessageDeduplicationId', input.deduplicationId);
    const delaySeconds = input.delaySeconds ?? 0;
    checkIntegerInRange('DelaySeconds', delaySeconds, 0, MAX_DELAY_SECONDS);

    const now = this.now();
    this.pruneDedup(now);
    const seen = this.dedup.get(input.deduplicationId);
    if (seen) {
      // SQS accepts the call and answers with the original message's ids.
      this.duplicateCount++;
      return { messageId: seen.messageId, sequenceNumber: seen.sequenceNumber, duplicate: true };
    }

    const message: StoredMessage = {
      messageId: randomUUID(),
      body: input.body,
      md5OfBody: createHash('md5').update(input.body, 'utf8').digest('hex'),
      groupId: input.groupId,
      deduplicationId: input.deduplicationId,
      sentAt: now,
      seq: this.takeSeq(),
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
      firstReceivedAt: undefined,
      receiptHandle: undefined,
    };
    this.enqueue(message);
    this.sentCount++;
    const sequenceNumber = String(message.seq);
    this.dedup.set(input.deduplicationId, {
      messageId: message.messageId,
      sequenceNumber,
      expiresAt: now + this.dedupWindowMs,
    });
    return { messageId: message.messageId, sequenceNumber, duplicate: false };
  }

  /**
   * Like ReceiveMessage on a FIFO queue: oldest group first, as many
   * consecutive messages of a group as fit, and no group with a message in
   * flight. Defaults to one message, as ReceiveMessage does.
   */
  receive(max = 1): SqsRecordLike[] {
    checkIntegerInRange('MaxNumberOfMessages', max, 1, MAX_RECEIVE_BATCH);
    const now = this.now();
    const out: SqsRecordLike[] = [];
    const ordered = [...this.groups.values()].sort((a, b) => compareSeq(a[0], b[0]));
    for (const group of ordered) {
      if (out.length >= max) break;
      if (group.some((m) => isInFlight(m, now))) continue;
      let i = 0;
      while (i < group.length && out.length < max) {
        const message = group[i] as StoredMessage;
        // Strict order: a delayed message holds back everything behind it.
        if (message.visibleAt > now) break;
        if (message.receiveCount >= this.maxReceiveCount) {
          this.moveToDeadLetters(message, now);
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
    return true;
  }

  changeVisibility(receiptHandle: string, timeoutMs: number): boolean {
    checkIntegerInRange('VisibilityTimeout (ms)', timeoutMs, 0, MAX_VISIBILITY_TIMEOUT_MS);
    const message = this.validHandle(receiptHandle);
    if (!message) return false;
    message.visibleAt = this.now() + timeoutMs;
    return true;
  }

  /** Moves every dead letter back to the tail of its group, receive count reset, like a DLQ redrive. */
  redrive(): number {
    const now = this.now();
    let moved = 0;
    for (const { record } of this.deadLetters) {
      const message = this.deadStore.get(record.messageId);
      if (!message) continue;
      message.seq = this.takeSeq();
      message.visibleAt = now;
      message.receiveCount = 0;
      message.firstReceivedAt = undefined;
      message.receiptHandle = undefined;
      this.enqueue(message);
      moved++;
    }
    this.deadLetters.length = 0;
    this.deadStore.clear();
    return moved;
  }

  stats(): QueueStats {
    const now = this.now();
    let visible = 0;
    let inFlight = 0;
    let delayed = 0;
    for (const message of this.byId.values()) {
      if (message.visibleAt <= now) visible++;
      else if (message.receiptHandle !== undefined) inFlight++;
      else delayed++;
    }
    return {
      visible,
      inFlight,
      delayed,
      deadLetters: this.deadLetters.length,
      sent: this.sentCount,
      duplicatesDropped: this.duplicateCount,
    };
  }

  /** Visible + in flight + delayed; dead letters are not counted. */
  size(): number {
    return this.byId.size;
  }

  private deliver(message: StoredMessage, now: number): SqsRecordLike {
    if (message.receiptHandle !== undefined) this.byHandle.delete(message.receiptHandle);
    const receiptHandle = randomBytes(48).toString('base64');
    message.receiptHandle = receiptHandle;
    this.byHandle.set(receiptHandle, message);
    message.receiveCount++;
    message.firstReceivedAt ??= now;
    message.visibleAt = now + this.visibilityTimeoutMs;
    return toRecord(this.arn, message);
  }

  private moveToDeadLetters(message: StoredMessage, now: number): void {
    const record = toRecord(this.arn, message);
    record.attributes.DeadLetterQueueSourceArn = this.arn;
    if (message.receiptHandle !== undefined) this.byHandle.delete(message.receiptHandle);
    this.remove(message);
    this.deadStore.set(message.messageId, message);
    this.deadLetters.push({
      record,
      reason: `maxReceiveCount ${this.maxReceiveCount} exceeded: received ${message.receiveCount} times without being deleted`,
      movedAt: now,
    });
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
    }
  }

  private takeSeq(): bigint {
    this.nextSeq++;
    return SEQUENCE_BASE + this.nextSeq;
  }
}

function isInFlight(message: StoredMessage, now: number): boolean {
  return message.receiptHandle !== undefined && message.visibleAt > now;
}

function compareSeq(a: StoredMessage | undefined, b: StoredMessage | undefined): number {
  const x = a?.seq ?? 0n;
  const y = b?.seq ?? 0n;
  return x < y ? -1 : x > y ? 1 : 0;
}
