/** One ReceiveMessage call, answered as Lambda-shaped records with every attribute the worker reads. */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { type RecordSource, recordOf } from './sqs-record.js';
import type { SqsSender } from '../../../lib/queue/sqs/sqs-run-queue.js';
import { refusing } from '../../../lib/queue/sqs/sqs-refusal.js';

export interface ReceiveFrom {
  readonly sqs: SqsSender;
  readonly queueUrl: string;
  readonly source: RecordSource;
}

/**
 * A short poll (what is visible now, as the embedded queue answers). `visibilityTimeout` overrides
 * the queue's for this receive only.
 */
export async function receiveRecords(from: ReceiveFrom, max: number, visibilityTimeout?: number): Promise<SQSRecord[]> {
  const out = await refusing(() =>
    from.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: from.queueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: 0,
        ...(visibilityTimeout === undefined ? {} : { VisibilityTimeout: visibilityTimeout }),
        // AttributeNames is the older spelling of MessageSystemAttributeNames: an endpoint may know either.
        AttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    ),
  );
  return (out.Messages ?? []).map((m) => recordOf(m, from.source));
}
