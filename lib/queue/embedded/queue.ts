/**
 * The embedded queue behind the `Queue` contract, as the SQS one is: every call answers once what
 * it changed is on disk (with a journal), and a refusal rejects with a `QueueRefusedError`, so the
 * intake, the reconciler and the worker's deferral run alike on either queue.
 */
import type { RunMessage } from '../../model.js';
import { QueueRefusedError } from '../queue-refused.js';
import type { Queue, ReceivedRecord, RunQueue } from '../run-queue.js';
import type { EmbeddedFifoQueue } from './fifo-queue.js';

export interface EmbeddedQueueOptions {
  /** Milliseconds per second of a visibility change: 1000 but in tests that shorten waits. */
  readonly unitMs?: number;
}

const staleHandle = (what: string, record: ReceivedRecord): QueueRefusedError =>
  new QueueRefusedError(
    'ReceiptHandleIsInvalid',
    `${what} refused: the receipt handle of message ${record.messageId} is stale or expired`,
  );

export function embeddedQueue(fifo: EmbeddedFifoQueue, opts: EmbeddedQueueOptions = {}): Queue {
  const unitMs = opts.unitMs ?? 1000;
  const sendBody: Queue['sendBody'] = async (input) => {
    const { messageId } = fifo.send(input);
    // With a journal, the send is done once the message is on disk: only then may the intake answer 2xx.
    await fifo.persisted([messageId]);
    return { messageId };
  };
  return {
    send: async (message: RunMessage, groupId: string, deduplicationId: string) => {
      await sendBody({ body: JSON.stringify(message), groupId, deduplicationId });
    },
    sendBody,
    receive: async (max) => {
      const records = fifo.receive(max);
      // A receive counts toward the redrive only once it is on disk; until then nobody acts on it.
      await fifo.persisted(records.map((r) => r.messageId));
      return records;
    },
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

/** The run queue on the embedded queue, as `sqsRunQueue` is on SQS: the message as JSON. */
export const embeddedRunQueue = (fifo: EmbeddedFifoQueue): RunQueue => {
  const { send } = embeddedQueue(fifo);
  return { send };
};
