import { ReceiptHandleIsInvalid, SQSServiceException } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import { receiveRecords } from '../../support/sqs/sqs-receive.js';
import { FakeSqs, fails } from './fake-sqs.js';

const SOURCE = { queueArn: 'arn:aws:sqs:eu-west-1:1:q.fifo', region: 'eu-west-1' };
const from = (sqs: FakeSqs) => ({ sqs, queueUrl: 'http://sqs/q.fifo', source: SOURCE });

describe('receiveRecords: one ReceiveMessage', () => {
  it('is a short poll asking every attribute, in both spellings, with the queue its visibility', async () => {
    const sqs = new FakeSqs();
    await receiveRecords(from(sqs), 7);
    expect(sqs.named('ReceiveMessageCommand')).toEqual([
      {
        QueueUrl: 'http://sqs/q.fifo',
        MaxNumberOfMessages: 7,
        WaitTimeSeconds: 0,
        AttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      },
    ]);
  });

  it('overrides the visibility for this receive only when asked', async () => {
    const sqs = new FakeSqs();
    await receiveRecords(from(sqs), 10, 60);
    expect(sqs.named('ReceiveMessageCommand')[0]).toMatchObject({ VisibilityTimeout: 60 });
  });

  it('answers the messages as records of this queue, in the order SQS gave them', async () => {
    const sqs = new FakeSqs().on('ReceiveMessageCommand', () => ({
      Messages: [
        { MessageId: 'a', ReceiptHandle: 'ha', Body: 'A', Attributes: { MessageGroupId: 'g' } },
        { MessageId: 'b', ReceiptHandle: 'hb', Body: 'B', Attributes: { MessageGroupId: 'g' } },
      ],
    }));
    const records = await receiveRecords(from(sqs), 10);
    expect(records.map((r) => [r.messageId, r.receiptHandle, r.body, r.eventSourceARN])).toEqual([
      ['a', 'ha', 'A', SOURCE.queueArn],
      ['b', 'hb', 'B', SOURCE.queueArn],
    ]);
  });

  it('answers no records when nothing is visible (no Messages in the answer)', async () => {
    expect(await receiveRecords(from(new FakeSqs()), 10)).toEqual([]);
  });

  it('rejects a refused receive (more than 10) as a QueueRefusedError', async () => {
    const refused = new SQSServiceException({
      name: 'InvalidParameterValue',
      message: 'Value 11 for parameter MaxNumberOfMessages is invalid',
      $fault: 'client',
      $metadata: {},
    });
    const sqs = new FakeSqs().on('ReceiveMessageCommand', fails(refused));
    await expect(receiveRecords(from(sqs), 11)).rejects.toMatchObject({ code: 'InvalidParameterValue' });
    const stale = new FakeSqs().on(
      'ReceiveMessageCommand',
      fails(new ReceiptHandleIsInvalid({ message: 'x', $metadata: {} })),
    );
    await expect(receiveRecords(from(stale), 1)).rejects.toBeInstanceOf(QueueRefusedError);
  });
});
