/**
 * The embedded queue (lib/local/queue.ts) behind the `Queue` interface, for the contract suite.
 * Its refusals (`QueueInputError`, a `false` from a stale or expired handle) reject as the
 * contract's `QueueRefusedError`. The embedded queue's own adapter will replace this one once it
 * sits in lib/queue/embedded/.
 */
import type { SQSRecord } from 'aws-lambda';
import { EmbeddedFifoQueue, embeddedRunQueue, QueueInputError } from '../../../lib/local/queue.js';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import type { Queue, ReceivedRecord, SendInput } from '../../../lib/queue/run-queue.js';

async function refusing<T>(call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof QueueInputError) throw new QueueRefusedError(error.code, error.message);
    throw error;
  }
}

const staleHandle = (record: ReceivedRecord) =>
  new QueueRefusedError(
    'ReceiptHandleIsInvalid',
    `the receipt handle of message ${record.messageId} is stale or expired`,
  );

export function embeddedQueue(queue: EmbeddedFifoQueue): Queue {
  const run = embeddedRunQueue(queue);
  return {
    send: (message, groupId, deduplicationId) => refusing(() => run.send(message, groupId, deduplicationId)),
    sendBody: (input: SendInput) => refusing(() => ({ messageId: queue.send(input).messageId })),
    receive: (max: number): Promise<SQSRecord[]> => refusing(() => queue.receive(max)),
    delete: async (record) => {
      if (!queue.delete(record.receiptHandle)) throw staleHandle(record);
      await queue.persisted([record.messageId]);
    },
    changeVisibility: async (record, seconds) => {
      if (!(await refusing(() => queue.changeVisibility(record.receiptHandle, seconds * 1000)))) {
        throw staleHandle(record);
      }
      await queue.persisted([record.messageId]);
    },
    deadLetters: async () => queue.deadLetters.map((letter) => letter.record),
    redrive: async () => queue.redrive(),
  };
}
