import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeferringQueue } from '../run-queue.js';
import { refusing } from './sqs-refusal.js';

/**
 * The worker's deferral on SQS: ChangeMessageVisibility on the queue's URL as the stack gave it
 * (right in every partition, never rebuilt from the ARN). A refusal (a stale or expired handle,
 * a wait past 12 hours) rejects as a `QueueRefusedError`; a fault of the call (throttling, the
 * network) as it came. The worker needs no more of the queue than this: Lambda receives for it.
 */
export const sqsDeferringQueue = (sqs: Pick<SQSClient, 'send'>, queueUrl: string): DeferringQueue => ({
  changeVisibility: async (record, seconds) => {
    await refusing(() =>
      sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: seconds,
        }),
      ),
    );
  },
});
