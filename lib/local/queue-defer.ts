import type { SQSRecord } from 'aws-lambda';
import type { EmbeddedFifoQueue } from './queue.js';
import { QueueInputError } from './queue-input.js';

/**
 * The worker's deferral on the embedded queue, as ChangeMessageVisibility is on SQS: `seconds`
 * (of `unitMs` each, 1000 but in tests), and a refusal rejects (a stale or expired handle, or a
 * wait past 12 hours from the first receive), so the worker's refused-deferral path runs here too.
 */
export const embeddedDefer =
  (queue: EmbeddedFifoQueue, unitMs = 1000) =>
  async (record: Pick<SQSRecord, 'messageId' | 'receiptHandle'>, seconds: number): Promise<void> => {
    if (!queue.changeVisibility(record.receiptHandle, seconds * unitMs)) {
      throw new QueueInputError(
        'ReceiptHandleIsInvalid',
        `visibility change refused: the receipt handle of message ${record.messageId} is stale or expired`,
      );
    }
    await queue.persisted([record.messageId]);
  };
