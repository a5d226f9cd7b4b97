/**
 * The embedded queue behind the `Queue` contract, as the SQS one is: every call answers once what
 * it changed is on disk (with a journal), and a refusal rejects with a `QueueRefusedError`, so the
 * intake, the reconciler, the worker's deferral and the poller run alike on either queue.
 */
import type { SQSRecord } from 'aws-lambda';
import type { QueueMessage } from '../../model.js';
import { QueueRefusedError } from '../queue-refused.js';
import type { Queue, ReceivedRecord, RunQueue } from '../run-queue.js';
import type { EmbeddedFifoQueue, QueueStats } from './fifo-queue.js';

/** How the contract reads the embedded queue's time. */
export interface EmbeddedQueueOptions {
  /** Milliseconds per second of a visibility change: 1000 but in tests that shorten waits. */
  readonly unitMs?: number;
  /** When a receive cannot be written to the queue's journal, its records are visible again after this long (ms). */
  readonly giveBackMs?: number;
}

/**
 * The local runtime's one queue: the contract, and what only an embedded queue can tell (its name,
 * what it holds), which the poller's drain, the health route and the restart sweep read.
 */
export interface EmbeddedQueue extends Queue {
  readonly name: string;
  /** Receives allowed before a message moves to the dead-letter queue. */
  readonly maxReceiveCount: number;
  /** Messages visible or in flight (dead letters excluded). */
  size(): number;
  stats(): QueueStats;
  /** The bodies of the messages visible or in flight. */
  bodies(): string[];
}

const staleHandle = (what: string, record: ReceivedRecord): QueueRefusedError =>
  new QueueRefusedError(
    'ReceiptHandleIsInvalid',
    `${what} refused: the receipt handle of message ${record.messageId} is stale or expired`,
  );

/** The contract on `fifo`: each change answered once it is on disk, each refusal a `QueueRefusedError`. */
export function embeddedQueue(fifo: EmbeddedFifoQueue, opts: EmbeddedQueueOptions = {}): EmbeddedQueue {
  const unitMs = opts.unitMs ?? 1000;
  return {
    name: fifo.name,
    maxReceiveCount: fifo.maxReceiveCount,
    size: () => fifo.size(),
    stats: () => fifo.stats(),
    bodies: () => fifo.bodies(),
    send: embeddedRunQueue(fifo).send,
    receive: (max) => receiveOnDisk(fifo, max, opts.giveBackMs ?? 1000),
    delete: async (record) => {
      if (!fifo.delete(record.receiptHandle)) throw staleHandle('delete', record);
      await fifo.persisted([record.messageId]);
    },
    // A wait ending past 12 hours from the first receive throws from the queue itself.
    changeVisibility: async (record, seconds) => {
      if (!fifo.changeVisibility(record.receiptHandle, seconds * unitMs))
        throw staleHandle('visibility change', record);
      await fifo.persisted([record.messageId]);
    },
    deadLetters: async () => fifo.deadLetters.map((letter) => letter.record),
    redrive: async () => {
      const ids = fifo.deadLetters.map((letter) => letter.record.messageId);
      const moved = fifo.redrive();
      await fifo.persisted(ids);
      return moved;
    },
  };
}

/**
 * A receive counts toward the redrive only once it is on disk; until then nobody acts on it. One
 * the journal cannot take (the journal reports its fault) answers nothing, and its records come
 * back after `giveBackMs` rather than after a whole visibility timeout.
 */
async function receiveOnDisk(fifo: EmbeddedFifoQueue, max: number, giveBackMs: number): Promise<SQSRecord[]> {
  const records = fifo.receive(max);
  try {
    await fifo.persisted(records.map((r) => r.messageId));
    return records;
  } catch {
    for (const r of records) {
      try {
        fifo.changeVisibility(r.receiptHandle, giveBackMs);
      } catch {
        // Past SQS's 12 hours from its first receive: it comes back after its own timeout instead.
      }
    }
    return [];
  }
}

/** The run queue on the embedded queue, as `sqsRunQueue` is on SQS: the message as JSON, answered once on disk. */
export const embeddedRunQueue = (fifo: EmbeddedFifoQueue): RunQueue => ({
  send: async (message: QueueMessage, groupId: string, deduplicationId: string) => {
    const { messageId } = fifo.send({ body: JSON.stringify(message), groupId, deduplicationId });
    // With a journal, the send is done once the message is on disk: only then may the intake answer 2xx.
    await fifo.persisted([messageId]);
  },
});
