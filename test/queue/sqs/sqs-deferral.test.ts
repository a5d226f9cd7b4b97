/**
 * The worker's deferral on SQS: one ChangeMessageVisibility on the queue's URL, and SQS's refusals
 * (a stale handle, a message not in flight, a wait past 12 hours) as `QueueRefusedError`.
 */
import {
  ChangeMessageVisibilityCommand,
  MessageNotInflight,
  ReceiptHandleIsInvalid,
  RequestThrottled,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import { sqsDeferringQueue } from '../../../lib/queue/sqs/sqs-deferral.js';

const URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/reprise-runs.fifo';
const RECORD = { messageId: 'm1', receiptHandle: 'handle-1' };

/** An SQS client that answers every call with `answer` and keeps what it was sent. */
function fakeSqs(answer: () => Promise<unknown>) {
  const sent: unknown[] = [];
  return {
    sent,
    client: {
      send: (command: unknown) => {
        sent.push(command);
        return answer();
      },
    } as never,
  };
}

const metadata = { $metadata: {} };

describe('sqsDeferringQueue', () => {
  it("changes the record's visibility on the queue's URL, by its receipt handle", async () => {
    const sqs = fakeSqs(async () => ({}));
    await sqsDeferringQueue(sqs.client, URL).changeVisibility(RECORD, 120);
    expect(sqs.sent).toHaveLength(1);
    expect(sqs.sent[0]).toBeInstanceOf(ChangeMessageVisibilityCommand);
    expect((sqs.sent[0] as ChangeMessageVisibilityCommand).input).toEqual({
      QueueUrl: URL,
      ReceiptHandle: 'handle-1',
      VisibilityTimeout: 120,
    });
  });

  it.each([
    ['a stale handle', () => new ReceiptHandleIsInvalid({ message: 'stale', ...metadata }), 'ReceiptHandleIsInvalid'],
    [
      'a message not in flight',
      () => new MessageNotInflight({ message: 'not inflight', ...metadata }),
      'MessageNotInflight',
    ],
    [
      'a wait past 12 hours (the query code)',
      () =>
        Object.assign(
          new SQSServiceException({ name: 'ValidationException', $fault: 'client', message: 'beyond', ...metadata }),
          { Code: 'InvalidParameterValue' },
        ),
      'InvalidParameterValue',
    ],
    [
      'a wait past 12 hours (the error name)',
      () =>
        new SQSServiceException({ name: 'InvalidParameterValue', $fault: 'client', message: 'beyond', ...metadata }),
      'InvalidParameterValue',
    ],
  ])('%s rejects as a QueueRefusedError with its code', async (_label, error, code) => {
    const sqs = fakeSqs(() => Promise.reject(error()));
    const refusal = await sqsDeferringQueue(sqs.client, URL)
      .changeVisibility(RECORD, 60)
      .catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(QueueRefusedError);
    expect(refusal).toMatchObject({ code });
  });

  it('a fault of the call that is no refusal (throttling, the network) rejects as it came', async () => {
    const throttled = new RequestThrottled({ message: 'slow down', ...metadata });
    const network = new Error('socket hang up');
    for (const error of [throttled, network]) {
      const sqs = fakeSqs(() => Promise.reject(error));
      await expect(sqsDeferringQueue(sqs.client, URL).changeVisibility(RECORD, 60)).rejects.toBe(error);
    }
  });
});
