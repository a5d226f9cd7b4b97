/**
 * The run queue, as the intake, the reconciler and the worker use it: Amazon SQS FIFO when
 * deployed (sqs/), the embedded queue in the local runtime (embedded/). Both keep one contract,
 * held by one suite run on each (test/queue/contract.test.ts); a caller names only these types.
 */
import type { SQSRecord } from 'aws-lambda';
import type { QueueMessage } from '../model.js';

/** What the intake, the signal paths and the reconciler send: one message, in its group, under its deduplication id. */
export interface RunQueue {
  send(message: QueueMessage, groupId: string, deduplicationId: string): Promise<void>;
}

/** The part of a received record a visibility change or a delete names. */
export type ReceivedRecord = Pick<SQSRecord, 'messageId' | 'receiptHandle'>;

/**
 * The worker's deferral: ChangeMessageVisibility. A refusal rejects with a `QueueRefusedError`
 * (a stale or expired receipt handle, or a wait ending past 12 hours from the first receive),
 * so the worker's refused-deferral path runs on either queue.
 */
export interface DeferringQueue {
  changeVisibility(record: ReceivedRecord, seconds: number): Promise<void>;
}

export interface SendInput {
  body: string;
  groupId: string;
  deduplicationId: string;
}

/**
 * The whole queue, as the contract suite drives it and the local runtime's poller reads it:
 * records carry SQS's attributes (ApproximateReceiveCount, ApproximateFirstReceiveTimestamp,
 * MessageGroupId, MessageDeduplicationId), and a message received too often moves to the
 * dead-letter queue.
 */
export interface Queue extends RunQueue, DeferringQueue {
  sendBody(input: SendInput): Promise<{ messageId: string }>;
  /** At most `max` (1-10) visible records, a FIFO group's in order, none of a group with a batch in flight. */
  receive(max: number): Promise<SQSRecord[]>;
  delete(record: ReceivedRecord): Promise<void>;
  /** The dead-letter queue's records, oldest death first, without removing them. */
  deadLetters(): Promise<SQSRecord[]>;
  /** Moves every dead letter back to the queue; how many moved. */
  redrive(): Promise<number>;
}
