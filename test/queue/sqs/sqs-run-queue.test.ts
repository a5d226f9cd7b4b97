/** The run queue on SQS FIFO: one SendMessage, the message as JSON in the caller's group, under its id. */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { RunMessage } from '../../../lib/model.js';
import { sqsRunQueue } from '../../../lib/queue/sqs/sqs-run-queue.js';

const URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/reprise-runs.fifo';

describe('sqsRunQueue', () => {
  it("sends the message as JSON to the queue's URL in its group, under its deduplication id", async () => {
    const sent: unknown[] = [];
    const sqs = { send: async (command: unknown) => void sent.push(command) } as never;
    const message = { v: 1, runId: 7 } as unknown as RunMessage;
    await sqsRunQueue(sqs, URL).send(message, 'run-7', 'delivery-1');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(SendMessageCommand);
    expect((sent[0] as SendMessageCommand).input).toEqual({
      QueueUrl: URL,
      MessageBody: JSON.stringify(message),
      MessageGroupId: 'run-7',
      MessageDeduplicationId: 'delivery-1',
    });
  });

  it('a failed send rejects: the intake answers no 2xx for it', async () => {
    const error = new Error('throttled');
    const sqs = { send: () => Promise.reject(error) } as never;
    await expect(sqsRunQueue(sqs, URL).send({} as RunMessage, 'g', 'd')).rejects.toBe(error);
  });
});
