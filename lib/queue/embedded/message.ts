/**
 * A message as the embedded queue keeps it between send and delete, the rule that says whether
 * a consumer holds it, and the record it is handed out as.
 */
import { createHash } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { DEDUPLICATION_WINDOW_MS } from '../sqs-limits.js';

/** A live message as the queue keeps it: its body and ids, where it stands, and its receives. */
export interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly groupId: string;
  readonly deduplicationId: string;
  /** Send order; a redrive gives a new one, as the message joins the tail again. */
  order: number;
  /** Earliest time a receive may return it (end of its visibility timeout). */
  visibleAt: number;
  receiveCount: number;
  /** When it was first received (SQS's ApproximateFirstReceiveTimestamp); the 12-hour visibility ceiling counts from it. */
  firstReceivedAt: number | undefined;
  receiptHandle: string | undefined;
  /** Hidden by ChangeMessageVisibility since its last receive, rather than held by a consumer. */
  deferred: boolean;
  readonly dedupUntil: number;
}

/** What is kept of a deleted message: its deduplication id, until the window forgets it. */
export interface DeletedMessage {
  readonly deduplicationId: string;
  readonly expiresAt: number;
}

/** A handle no consumer holds: a restored deferral stays hidden until it ends, and nobody can delete it. */
export const RESTORED_HANDLE = 'restored';

/** Received (or deferred) and its visibility timeout still running: its group delivers nothing else. */
export function isInFlight(message: StoredMessage, now: number): boolean {
  return message.receiptHandle !== undefined && message.visibleAt > now;
}

/**
 * The record as Lambda's SQS event source hands it to a handler, with what the worker reads:
 * the receive count, the first receive time and the group; and, as SQS gives them, the send time
 * (the deduplication window opens at the send), a sender, the body's MD5 and a sequence number
 * (the send order: it grows within a group, and a redrive gives a new one).
 */
export function sqsRecordOf(message: StoredMessage, queueArn: string): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle ?? '',
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.dedupUntil - DEDUPLICATION_WINDOW_MS),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: message.firstReceivedAt === undefined ? '' : String(message.firstReceivedAt),
      MessageGroupId: message.groupId,
      MessageDeduplicationId: message.deduplicationId,
      SequenceNumber: String(message.order).padStart(20, '0'),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(message.body, 'utf8').digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'local',
  };
}

/**
 * A receive at `now`: a new receipt handle (the old one goes stale), one more receive (the first
 * one's time kept), hidden for the visibility timeout.
 */
export function markReceived(message: StoredMessage, receiptHandle: string, now: number, visibleAt: number): void {
  message.receiptHandle = receiptHandle;
  message.receiveCount++;
  message.firstReceivedAt ??= now;
  message.visibleAt = visibleAt;
  message.deferred = false;
}

/** A change of visibility: hidden until `visibleAt`, its handle still valid until then. */
export function markDeferred(message: StoredMessage, visibleAt: number): void {
  message.visibleAt = visibleAt;
  message.deferred = true;
}

/** A redrive: back at the tail (`order`), visible at once, its receives forgotten, held by no consumer. */
export function markRedriven(message: StoredMessage, order: number, now: number): void {
  message.order = order;
  message.visibleAt = now;
  message.receiveCount = 0;
  message.firstReceivedAt = undefined;
  message.receiptHandle = undefined;
  message.deferred = false;
}
