import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RunQueue } from '../run-queue.js';

/** The run queue on Amazon SQS FIFO: the caller's group and deduplication ids, the message as JSON. */
export const sqsRunQueue = (sqs: Pick<SQSClient, 'send'>, queueUrl: string): RunQueue => ({
  send: async (message, groupId, deduplicationId) => {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(message),
        MessageGroupId: groupId,
        MessageDeduplicationId: deduplicationId,
      }),
    );
  },
});
