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
  receiptHandle: string | undefined;
  /** Hidden by ChangeMessageVisibility since its last receive, rather than held by a consumer. */
  deferred: boolean;
  readonly dedupUntil: number;
}

/** A handle no consumer holds: a restored deferral stays hidden until it ends, and nobody can delete it. */
export const RESTORED_HANDLE = 'restored';

/** Received (or deferred) and its visibility timeout still running: its group delivers nothing else. */
export function isInFlight(message: StoredMessage, now: number): boolean {
  return message.receiptHandle !== undefined && message.visibleAt > now;
}

/**
 * The record as Lambda's SQS event source hands it to a handler, with what the worker reads:
 * the receive count and the group. Attributes the record type requires but nothing reads
 * (timestamps, sender, body digest) are left empty.
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
      ApproximateFirstReceiveTimestamp: '',
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

/** A receive: a new receipt handle (the old one goes stale), one more receive, hidden for the visibility timeout. */
export function markReceived(message: StoredMessage, receiptHandle: string, visibleAt: number): void {
  message.receiptHandle = receiptHandle;
  message.receiveCount++;
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
  message.receiptHandle = undefined;
  message.deferred = false;
}
