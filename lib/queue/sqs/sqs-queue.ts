/**
 * The run queue on Amazon SQS FIFO, as the contract suite (test/queue/contract.test.ts) holds it
 * beside the embedded queue. Each method is one SQS call (the dead-letter view and the redrive a
 * few, in sqs-dead-letters.ts); a refusal rejects as a `QueueRefusedError` (sqs-refusal.ts).
 */
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { Queue, ReceivedRecord, SendInput } from '../run-queue.js';
import { peekDeadLetters, redriveDeadLetters } from './sqs-dead-letters.js';
import { receiveRecords, type SqsSender } from './sqs-receive.js';
import { refusing } from './sqs-refusal.js';

export interface SqsQueueOptions {
  readonly sqs: SqsSender;
  readonly queueUrl: string;
  /** Named in each record's `eventSourceARN`, as Lambda names it. */
  readonly queueArn: string;
  readonly region: string;
  /** The queue's dead-letter queue (its redrive policy's target); without it `deadLetters` and `redrive` refuse. */
  readonly deadLetterQueueUrl?: string;
  readonly deadLetterQueueArn?: string;
}

export function sqsQueue(opts: SqsQueueOptions): Queue {
  const { sqs, queueUrl } = opts;
  const source = { queueArn: opts.queueArn, region: opts.region };

  const sendBody = async (input: SendInput) => {
    const out = await refusing(() =>
      sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: input.body,
          MessageGroupId: input.groupId,
          MessageDeduplicationId: input.deduplicationId,
        }),
      ),
    );
    if (!out.MessageId) throw new Error(`SendMessage to ${queueUrl} answered without a MessageId`);
    return { messageId: out.MessageId };
  };

  const deadLetterQueue = () => {
    if (!opts.deadLetterQueueUrl) throw new Error(`queue ${queueUrl}: no dead-letter queue was given`);
    return {
      sqs,
      queueUrl: opts.deadLetterQueueUrl,
      source: { queueArn: opts.deadLetterQueueArn ?? opts.deadLetterQueueUrl, region: opts.region },
    };
  };

  return {
    send: async (message, groupId, deduplicationId) => {
      await sendBody({ body: JSON.stringify(message), groupId, deduplicationId });
    },
    sendBody,
    receive: (max: number): Promise<SQSRecord[]> => receiveRecords({ sqs, queueUrl, source }, max),
    delete: async (record: ReceivedRecord) => {
      await refusing(() =>
        sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle })),
      );
    },
    changeVisibility: async (record: ReceivedRecord, seconds: number) => {
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
    deadLetters: async () => peekDeadLetters(deadLetterQueue()),
    redrive: async () => redriveDeadLetters(deadLetterQueue(), sendBody),
  };
}
