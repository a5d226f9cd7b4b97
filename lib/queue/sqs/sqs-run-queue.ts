import { SendMessageCommand, type SendMessageCommandOutput, type SQSClient } from '@aws-sdk/client-sqs';
import type { RunQueue, SendInput } from '../run-queue.js';
import { refusing } from './sqs-refusal.js';

/** The one method of the SDK's client the queue calls: a stub in a unit test, the client when deployed. */
export type SqsSender = Pick<SQSClient, 'send'>;

/** One SendMessage to the queue, in the caller's group under its deduplication id; a refusal rejects as a `QueueRefusedError`. */
export const sendMessage = (sqs: SqsSender, queueUrl: string, input: SendInput): Promise<SendMessageCommandOutput> =>
  refusing(() =>
    sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: input.body,
        MessageGroupId: input.groupId,
        MessageDeduplicationId: input.deduplicationId,
      }),
    ),
  );

/** The run queue on Amazon SQS FIFO, as the intake and the reconciler send to it: the message as JSON. */
export const sqsRunQueue = (sqs: SqsSender, queueUrl: string): RunQueue => ({
  send: async (message, groupId, deduplicationId) => {
    await sendMessage(sqs, queueUrl, { body: JSON.stringify(message), groupId, deduplicationId });
  },
});
