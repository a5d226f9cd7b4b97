/**
 * The run queue's contract, as the code that runs uses it: Amazon SQS FIFO when deployed (sqs/),
 * the embedded queue in the local runtime (embedded/). Both keep one behaviour, held by one suite
 * run on each (test/queue/contract.test.ts); a caller names only these types, and only the part
 * it uses.
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

/**
 * What Lambda's event source mapping does on SQS, and the local runtime's poller on the embedded
 * queue: records carry SQS's attributes (ApproximateReceiveCount, ApproximateFirstReceiveTimestamp,
 * MessageGroupId, MessageDeduplicationId), and a message received too often moves to the
 * dead-letter queue.
 */
export interface ConsumingQueue {
  /** At most `max` (1-10) visible records, a FIFO group's in order, none of a group with a batch in flight. */
  receive(max: number): Promise<SQSRecord[]>;
  /** Removes a handled record; a stale or expired receipt handle rejects with a `QueueRefusedError`. */
  delete(record: ReceivedRecord): Promise<void>;
}

/** The dead-letter queue, as the local runtime's `POST /redrive` reads and empties it. */
export interface DeadLetterQueue {
  /** The dead-letter queue's records, oldest death first, without removing them. */
  deadLetters(): Promise<SQSRecord[]>;
  /** Moves every dead letter back to the queue; how many moved. */
  redrive(): Promise<number>;
}

/** A raw send, as SQS's SendMessage takes it: the body as it is, in its group under its deduplication id. */
export interface SendInput {
  body: string;
  groupId: string;
  deduplicationId: string;
}

/** The whole queue, as the contract suite drives it on each implementation. */
export interface Queue extends RunQueue, DeferringQueue, ConsumingQueue, DeadLetterQueue {}
