import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type QueueErrorCode, QueueRefusedError } from '../queue-refused.js';
import type { DeferringQueue } from '../run-queue.js';

/** What SQS answers a visibility change it refuses: a stale or expired handle, or a wait past 12 hours. */
const DEFERRAL_REFUSALS: readonly QueueErrorCode[] = [
  'ReceiptHandleIsInvalid',
  'MessageNotInflight',
  'InvalidParameterValue',
];

/** The SDK names an error by its code (`name`); the query protocol's spelling, where sent, is in `Code`. */
function refusalOf(err: unknown): QueueRefusedError | undefined {
  const { name, Code, message } = (err ?? {}) as { name?: unknown; Code?: unknown; message?: unknown };
  const code = [Code, name].find((c): c is QueueErrorCode => DEFERRAL_REFUSALS.includes(c as QueueErrorCode));
  return code && new QueueRefusedError(code, typeof message === 'string' && message ? message : code);
}

/**
 * The worker's deferral on SQS: ChangeMessageVisibility on the queue's URL as the stack gave it
 * (right in every partition, never rebuilt from the ARN). A refusal rejects as a
 * `QueueRefusedError`; a fault of the call (throttling, the network) as it came.
 */
export const sqsDeferringQueue = (sqs: Pick<SQSClient, 'send'>, queueUrl: string): DeferringQueue => ({
  changeVisibility: async (record, seconds) => {
    try {
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: seconds,
        }),
      );
    } catch (err) {
      throw refusalOf(err) ?? err;
    }
  },
});
