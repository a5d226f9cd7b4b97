/**
 * The local runtime's run queue: in memory, or (with a data dir) journaled to the embedded DynamoDB
 * and rebuilt from it at start, so what the intake acknowledged outlives the process. Opened once,
 * and seen through its contract (queue.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoQueueJournal } from './journal.js';
import { EmbeddedFifoQueue, type QueueOptions } from './fifo-queue.js';
import { type EmbeddedQueue, embeddedQueue, type EmbeddedQueueOptions } from './queue.js';
import type { RestoredQueue } from './restore.js';

/** The queue as opened: its contract, the queue itself for tests to read, and what a restart found. */
export interface OpenedQueue {
  /** The contract the local runtime's processes and poller use. */
  readonly queue: EmbeddedQueue;
  /** The queue itself, for tests and tools that read or move its state directly. */
  readonly fifo: EmbeddedFifoQueue;
  /** What was rebuilt from disk; undefined for a queue in memory. */
  readonly restored?: RestoredQueue;
  /** Writes what is still pending, for a clean shutdown. */
  settle(): Promise<void>;
}

/** What `openRunQueue` takes: the queue's options, where it is kept, and how its contract reads time. */
export type OpenQueueOptions = Omit<QueueOptions, 'journal'> & {
  /** Journal the queue to this DynamoDB (the local runtime's dynalite on disk); in memory when undefined. */
  durable: { readonly client: DynamoDBClient } | undefined;
  /** A journal write that failed (the write is tried again by the next flush). */
  onError: (err: unknown) => void;
  /** The contract's options (its deferral unit). */
  contract?: EmbeddedQueueOptions;
};

/** Opens the queue, rebuilt from its journal when it has one. */
export async function openRunQueue(opts: OpenQueueOptions): Promise<OpenedQueue> {
  const { durable, onError, contract, ...queueOpts } = opts;
  if (!durable) {
    const fifo = new EmbeddedFifoQueue(queueOpts);
    return { queue: embeddedQueue(fifo, contract), fifo, settle: async () => undefined };
  }
  const journal = await DynamoQueueJournal.open(durable.client, queueOpts.name, { onError });
  const fifo = new EmbeddedFifoQueue({ ...queueOpts, journal });
  const restored = fifo.restore(await journal.load());
  return { queue: embeddedQueue(fifo, contract), fifo, restored, settle: () => journal.settle() };
}
