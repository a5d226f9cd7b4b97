import type { SqsRecordLike } from './queue-types.js';

/** A message as the queue keeps it between send and delete. */
export interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly groupId: string;
  readonly deduplicationId: string;
  readonly sentAt: number;
  seq: bigint;
  /** Earliest time a receive may return it (end of delay or of visibility timeout). */
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt: number | undefined;
  receiptHandle: string | undefined;
}

const SENDER_ID = '000000000000';

/** The record exactly as Lambda's SQS event source hands it to a handler. */
export function toRecord(queueArn: string, message: StoredMessage): SqsRecordLike {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle ?? '',
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: SENDER_ID,
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? ''),
      SequenceNumber: String(message.seq),
      MessageGroupId: message.groupId,
      MessageDeduplicationId: message.deduplicationId,
    },
    messageAttributes: {},
    md5OfBody: message.md5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'local',
  };
}
