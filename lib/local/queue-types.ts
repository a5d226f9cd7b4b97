/** Public shapes of the embedded FIFO queue. */
import type { SQSRecord } from 'aws-lambda';

export interface QueueOptions {
  /** FIFO queue name, ending in `.fifo` (e.g. 'reprise-runs.fifo'). */
  name: string;
  /** Default 30 s. 0 makes every receipt handle expire on arrival, as on a real FIFO queue. */
  visibilityTimeoutMs?: number;
  /** Receives allowed before the message moves to the dead-letter queue; default 5. */
  maxReceiveCount?: number;
  /** Default 5 minutes, as SQS. */
  deduplicationWindowMs?: number;
  /** Defaults to a new queue's MaximumMessageSize (256 KiB). */
  maxMessageBytes?: number;
  now?: () => number;
}

export interface SendInput {
  body: string;
  groupId: string;
  deduplicationId: string;
  /**
   * Per-message delay. Real FIFO queues only have a queue-level delay; locally
   * it serves retry backoff. A delayed head holds back the rest of its group.
   */
  delaySeconds?: number;
}

export interface SendResult {
  messageId: string;
  sequenceNumber: string;
  duplicate: boolean;
}

/** Exactly the record shape Lambda's SQS event source delivers. */
export type SqsRecordLike = SQSRecord;

export interface DeadLetter {
  record: SQSRecord;
  reason: string;
  movedAt: number;
}

export interface QueueStats {
  visible: number;
  inFlight: number;
  delayed: number;
  deadLetters: number;
  /** Messages accepted by `send` (duplicates excluded). */
  sent: number;
  duplicatesDropped: number;
}
