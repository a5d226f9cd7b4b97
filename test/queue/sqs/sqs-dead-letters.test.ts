import type { SQSRecord } from 'aws-lambda';
import { ReceiptHandleIsInvalid, RequestThrottled } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import type { SendInput } from '../../../lib/queue/run-queue.js';
import { DEAD_LETTER_HOLD_SECONDS, peekDeadLetters, redriveDeadLetters } from '../../support/sqs/sqs-dead-letters.js';
import { FakeSqs, fails } from './fake-sqs.js';

const DLQ = 'http://sqs/runs-dlq.fifo';
const META = { $metadata: {} };
const letter = (id: string, group: string | null = 'g') => ({
  MessageId: id,
  ReceiptHandle: `h-${id}`,
  Body: `body-${id}`,
  Attributes: group === null ? {} : { MessageGroupId: group },
});
const batch =
  (...ids: string[]) =>
  () => ({ Messages: ids.map((id) => letter(id)) });
const dlqOn = (sqs: FakeSqs) => ({ sqs, queueUrl: DLQ, source: { queueArn: 'arn:dlq', region: 'eu-west-1' } });

describe('peekDeadLetters: the letters, left on the dead-letter queue', () => {
  it('receives until nothing more comes, holding each batch, then hands every letter back at once', async () => {
    const sqs = new FakeSqs().on('ReceiveMessageCommand', batch('a', 'b'), batch('c'));
    const letters = await peekDeadLetters(dlqOn(sqs));
    expect(letters.map((l) => l.messageId)).toEqual(['a', 'b', 'c']);
    const receives = sqs.named('ReceiveMessageCommand');
    expect(receives).toHaveLength(3);
    expect(receives.every((r) => r.VisibilityTimeout === DEAD_LETTER_HOLD_SECONDS && r.QueueUrl === DLQ)).toBe(true);
    expect(sqs.named('ChangeMessageVisibilityCommand')).toEqual(
      ['a', 'b', 'c'].map((id) => ({ QueueUrl: DLQ, ReceiptHandle: `h-${id}`, VisibilityTimeout: 0 })),
    );
    expect(sqs.named('DeleteMessageCommand')).toEqual([]);
  });

  it('an empty dead-letter queue is one receive and no letters', async () => {
    const sqs = new FakeSqs();
    expect(await peekDeadLetters(dlqOn(sqs))).toEqual([]);
    expect(sqs.sent.map((c) => c.name)).toEqual(['ReceiveMessageCommand']);
  });

  it('a letter that could not be handed back rejects the view, after every other was handed back', async () => {
    const sqs = new FakeSqs()
      .on('ReceiveMessageCommand', batch('a', 'b'))
      .on('ChangeMessageVisibilityCommand', fails(new ReceiptHandleIsInvalid({ message: 'gone', ...META })));
    await expect(peekDeadLetters(dlqOn(sqs))).rejects.toBeInstanceOf(QueueRefusedError);
    expect(sqs.named('ChangeMessageVisibilityCommand')).toHaveLength(2);
  });
});

describe('redriveDeadLetters: every letter back to its group', () => {
  const sender = () => {
    const sent: SendInput[] = [];
    return { sent, send: async (input: SendInput) => void sent.push(input) };
  };

  it('sends each letter in its group under a deduplication id of its own, then deletes it; answers how many moved', async () => {
    const sqs = new FakeSqs().on('ReceiveMessageCommand', batch('a', 'b'), batch('c'));
    const { sent, send } = sender();
    expect(await redriveDeadLetters(dlqOn(sqs), send)).toBe(3);
    expect(sent).toEqual(
      ['a', 'b', 'c'].map((id) => ({ body: `body-${id}`, groupId: 'g', deduplicationId: `redrive-${id}` })),
    );
    expect(sqs.named('DeleteMessageCommand')).toEqual(
      ['a', 'b', 'c'].map((id) => ({ QueueUrl: DLQ, ReceiptHandle: `h-${id}` })),
    );
  });

  it('a letter whose send fails is not deleted: it stays a dead letter, and the redrive rejects', async () => {
    const sqs = new FakeSqs().on('ReceiveMessageCommand', batch('a', 'b'));
    const fault = new RequestThrottled({ message: 'slow down', ...META });
    let calls = 0;
    const send = async (input: SendInput) => {
      calls++;
      if (input.body === 'body-b') throw fault;
    };
    await expect(redriveDeadLetters(dlqOn(sqs), send)).rejects.toBe(fault);
    expect(calls).toBe(2);
    expect(sqs.named('DeleteMessageCommand')).toEqual([{ QueueUrl: DLQ, ReceiptHandle: 'h-a' }]);
  });

  it('a letter without a group is refused by name: it did not come from a FIFO queue', async () => {
    const sqs = new FakeSqs().on('ReceiveMessageCommand', () => ({ Messages: [letter('x', null)] }));
    const { sent, send } = sender();
    await expect(redriveDeadLetters(dlqOn(sqs), send)).rejects.toThrow(/x has no MessageGroupId/);
    expect(sent).toEqual([]);
    expect(sqs.named('DeleteMessageCommand')).toEqual([]);
  });

  it('the records it moves are read from the dead-letter queue it was given', async () => {
    const sqs = new FakeSqs().on('ReceiveMessageCommand', batch('a'));
    const seen: SQSRecord['body'][] = [];
    await redriveDeadLetters(dlqOn(sqs), async (input) => void seen.push(input.body));
    expect(seen).toEqual(['body-a']);
    expect(sqs.named('ReceiveMessageCommand').map((r) => r.QueueUrl)).toEqual([DLQ, DLQ]);
  });
});
