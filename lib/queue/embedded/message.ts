/**
 * A message as the embedded queue keeps it between send and delete, the rule that says whether
 * a consumer holds it, and the record it is handed out as.
 */
import type { SQSRecord } from 'aws-lambda';

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
 * the receive count, the first receive time and the group. Attributes the record type requires
 * but nothing reads (send time, sender, body digest) are left empty.
 */
export function sqsRecordOf(message: StoredMessage, queueArn: string): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle ?? '',
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: '',
      SenderId: '',
      ApproximateFirstReceiveTimestamp: message.firstReceivedAt === undefined ? '' : String(message.firstReceivedAt),
      MessageGroupId: message.groupId,
      MessageDeduplicationId: message.deduplicationId,
    },
    messageAttributes: {},
    md5OfBody: '',
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
