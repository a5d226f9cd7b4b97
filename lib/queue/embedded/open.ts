/**
 * The runtime's run queue: in memory, or (with a data dir) journaled to the embedded DynamoDB
 * and rebuilt from it at start, so what the intake acknowledged outlives the process.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoQueueJournal } from './journal.js';
import { EmbeddedFifoQueue, type QueueOptions } from './fifo-queue.js';
import type { RestoredQueue } from './restore.js';

export interface OpenedQueue {
  readonly queue: EmbeddedFifoQueue;
  /** What was rebuilt from disk; undefined for a queue in memory. */
  readonly restored?: RestoredQueue;
  /** Writes what is still pending, for a clean shutdown. */
  settle(): Promise<void>;
}

export async function openRunQueue(
  opts: Omit<QueueOptions, 'journal'> & {
    durable: { readonly client: DynamoDBClient } | undefined;
    onError: (err: unknown) => void;
  },
): Promise<OpenedQueue> {
  const { durable, onError, ...queueOpts } = opts;
  if (!durable) return { queue: new EmbeddedFifoQueue(queueOpts), settle: async () => undefined };
  const journal = await DynamoQueueJournal.open(durable.client, queueOpts.name, { onError });
  const queue = new EmbeddedFifoQueue({ ...queueOpts, journal });
  const restored = queue.restore(await journal.load());
  return { queue, restored, settle: () => journal.settle() };
}
