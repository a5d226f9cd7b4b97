import { ReceiptHandleIsInvalid, RequestThrottled, SQSServiceException } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import { sqsQueue } from '../../support/sqs/sqs-queue.js';
import type { RunMessage } from '../../../lib/model.js';
import { FakeSqs, fails } from './fake-sqs.js';

const URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/runs.fifo';
const ARN = 'arn:aws:sqs:eu-west-1:123456789012:runs.fifo';
const DLQ_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/runs-dlq.fifo';
const META = { $metadata: {} };

const queueOn = (sqs: FakeSqs, dlq = true) =>
  sqsQueue({
    sqs,
    queueUrl: URL,
    queueArn: ARN,
    region: 'eu-west-1',
    ...(dlq ? { deadLetterQueueUrl: DLQ_URL, deadLetterQueueArn: `${ARN}-dlq` } : {}),
  });
const handle = { messageId: 'm-1', receiptHandle: 'h-1' };

describe('sqsQueue: the run queue on SQS, one call per method', () => {
  it('sendBody is one SendMessage with the group and deduplication ids, answering its MessageId', async () => {
    const sqs = new FakeSqs().on('SendMessageCommand', () => ({ MessageId: 'm-9' }));
    const out = await queueOn(sqs).sendBody({ body: 'b', groupId: 'g', deduplicationId: 'd' });
    expect(out).toEqual({ messageId: 'm-9' });
    expect(sqs.named('SendMessageCommand')).toEqual([
      { QueueUrl: URL, MessageBody: 'b', MessageGroupId: 'g', MessageDeduplicationId: 'd' },
    ]);
  });

  it('send writes the run message as JSON, as sqsRunQueue does', async () => {
    const sqs = new FakeSqs().on('SendMessageCommand', () => ({ MessageId: 'm' }));
    const message = { v: 1, runId: 7 } as unknown as RunMessage;
    await queueOn(sqs).send(message, 'repo-1', 'run-7-1');
    expect(sqs.named('SendMessageCommand')[0]).toMatchObject({
      MessageBody: JSON.stringify(message),
      MessageGroupId: 'repo-1',
      MessageDeduplicationId: 'run-7-1',
    });
  });

  it('a SendMessage answered without a MessageId is an error, not a message id of undefined', async () => {
    await expect(queueOn(new FakeSqs()).sendBody({ body: 'b', groupId: 'g', deduplicationId: 'd' })).rejects.toThrow(
      /without a MessageId/,
    );
  });

  it('a refused send rejects as a QueueRefusedError', async () => {
    const refused = new SQSServiceException({
      name: 'MissingParameter',
      message: 'MessageGroupId',
      $fault: 'client',
      ...META,
    });
    const sqs = new FakeSqs().on('SendMessageCommand', fails(refused));
    await expect(queueOn(sqs).sendBody({ body: 'b', groupId: '', deduplicationId: 'd' })).rejects.toMatchObject({
      name: 'QueueRefusedError',
      code: 'MissingParameter',
    });
  });

  it('receive reads the queue as records naming it', async () => {
    const sqs = new FakeSqs().on('ReceiveMessageCommand', () => ({
      Messages: [{ MessageId: 'm', ReceiptHandle: 'h', Body: 'b', Attributes: { ApproximateReceiveCount: '1' } }],
    }));
    const [record] = await queueOn(sqs).receive(3);
    expect(sqs.named('ReceiveMessageCommand')[0]).toMatchObject({ QueueUrl: URL, MaxNumberOfMessages: 3 });
    expect(record).toMatchObject({ messageId: 'm', eventSourceARN: ARN, awsRegion: 'eu-west-1' });
  });

  it('delete and changeVisibility name the record by its receipt handle', async () => {
    const sqs = new FakeSqs();
    const queue = queueOn(sqs);
    await queue.changeVisibility(handle, 900);
    await queue.delete(handle);
    expect(sqs.sent).toEqual([
      {
        name: 'ChangeMessageVisibilityCommand',
        input: { QueueUrl: URL, ReceiptHandle: 'h-1', VisibilityTimeout: 900 },
      },
      { name: 'DeleteMessageCommand', input: { QueueUrl: URL, ReceiptHandle: 'h-1' } },
    ]);
  });

  it.each([
    [
      'a stale handle',
      new ReceiptHandleIsInvalid({ message: 'The input receipt handle is invalid.', ...META }),
      'ReceiptHandleIsInvalid',
    ],
    [
      'an expired FIFO handle',
      new SQSServiceException({
        name: 'InvalidParameterValue',
        message: 'The receipt handle has expired.',
        $fault: 'client',
        ...META,
      }),
      'InvalidParameterValue',
    ],
    [
      'a wait past 12 hours',
      new SQSServiceException({
        name: 'InvalidParameterValue',
        message: 'Total VisibilityTimeout for the message is beyond the limit [43200 seconds]',
        $fault: 'client',
        ...META,
      }),
      'InvalidParameterValue',
    ],
  ])('a visibility change refused for %s rejects as a QueueRefusedError (%s)', async (_what, error, code) => {
    const sqs = new FakeSqs().on('ChangeMessageVisibilityCommand', fails(error));
    const rejected = await queueOn(sqs)
      .changeVisibility(handle, 60)
      .catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(QueueRefusedError);
    expect(rejected).toMatchObject({ code, message: error.message });
  });

  it('a throttled call rejects as it came: it is no refusal of the message', async () => {
    const fault = new RequestThrottled({ message: 'slow down', ...META });
    const sqs = new FakeSqs()
      .on('ChangeMessageVisibilityCommand', fails(fault))
      .on('DeleteMessageCommand', fails(fault));
    await expect(queueOn(sqs).changeVisibility(handle, 60)).rejects.toBe(fault);
    await expect(queueOn(sqs).delete(handle)).rejects.toBe(fault);
  });

  it('without a dead-letter queue, deadLetters and redrive reject with the reason and call nothing', async () => {
    const sqs = new FakeSqs();
    await expect(queueOn(sqs, false).deadLetters()).rejects.toThrow(/no dead-letter queue/);
    await expect(queueOn(sqs, false).redrive()).rejects.toThrow(/no dead-letter queue/);
    expect(sqs.sent).toEqual([]);
  });

  it('deadLetters reads the dead-letter queue, whose records name it', async () => {
    const sqs = new FakeSqs().on('ReceiveMessageCommand', () => ({
      Messages: [{ MessageId: 'dead', ReceiptHandle: 'hd', Body: 'b', Attributes: { MessageGroupId: 'g' } }],
    }));
    const letters = await queueOn(sqs).deadLetters();
    expect(letters.map((l) => [l.messageId, l.eventSourceARN])).toEqual([['dead', `${ARN}-dlq`]]);
    expect(sqs.named('ReceiveMessageCommand').every((input) => input.QueueUrl === DLQ_URL)).toBe(true);
  });

  it('redrive sends each dead letter to this queue', async () => {
    const sqs = new FakeSqs()
      .on('ReceiveMessageCommand', () => ({
        Messages: [{ MessageId: 'dead', ReceiptHandle: 'hd', Body: 'b', Attributes: { MessageGroupId: 'g' } }],
      }))
      .on('SendMessageCommand', () => ({ MessageId: 'new' }));
    expect(await queueOn(sqs).redrive()).toBe(1);
    expect(sqs.named('SendMessageCommand')).toEqual([
      { QueueUrl: URL, MessageBody: 'b', MessageGroupId: 'g', MessageDeduplicationId: 'redrive-dead' },
    ]);
    expect(sqs.named('DeleteMessageCommand')).toEqual([{ QueueUrl: DLQ_URL, ReceiptHandle: 'hd' }]);
  });
});
