/**
 * The run queue on Amazon SQS FIFO, whole, as the contract suite (test/queue/contract.test.ts) holds
 * it beside the embedded queue. Test code only: the deployed functions use its send (`sqsRunQueue`)
 * and its deferral (`sqsDeferringQueue`) from lib/queue/sqs/, since Lambda receives and deletes for
 * them. Each method is one SQS call (the dead-letter view and the redrive a few, in
 * sqs-dead-letters.ts); a refusal rejects as a `QueueRefusedError` (lib/queue/sqs/sqs-refusal.ts).
 */
import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { Queue, ReceivedRecord, SendInput } from '../../../lib/queue/run-queue.js';
import { peekDeadLetters, redriveDeadLetters } from './sqs-dead-letters.js';
import { receiveRecords } from './sqs-receive.js';
import { sqsDeferringQueue } from '../../../lib/queue/sqs/sqs-deferral.js';
import { refusing } from '../../../lib/queue/sqs/sqs-refusal.js';
import { sendMessage, type SqsSender, sqsRunQueue } from '../../../lib/queue/sqs/sqs-run-queue.js';

/** The contract, and a raw send (any body, the message id answered) for the suite's refusal and deduplication rows. */
export interface RawSendQueue extends Queue {
  sendBody(input: SendInput): Promise<{ messageId: string }>;
}

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

export function sqsQueue(opts: SqsQueueOptions): RawSendQueue {
  const { sqs, queueUrl } = opts;
  const source = { queueArn: opts.queueArn, region: opts.region };

  const sendBody = async (input: SendInput) => {
    const out = await sendMessage(sqs, queueUrl, input);
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

  // The send and the deferral are the ones the deployed functions use, so the contract suite holds them.
  return {
    send: sqsRunQueue(sqs, queueUrl).send,
    sendBody,
    receive: (max: number): Promise<SQSRecord[]> => receiveRecords({ sqs, queueUrl, source }, max),
    delete: async (record: ReceivedRecord) => {
      await refusing(() =>
        sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle })),
      );
    },
    changeVisibility: sqsDeferringQueue(sqs, queueUrl).changeVisibility,
    deadLetters: async () => peekDeadLetters(deadLetterQueue()),
    redrive: async () => redriveDeadLetters(deadLetterQueue(), sendBody),
  };
}
