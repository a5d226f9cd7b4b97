/**
 * Issue 35 item 1: the run queue's contract, one suite run on both implementations, the embedded
 * queue (the local runtime's) and SQS on moto_server (what runs deployed). Where the embedded queue
 * differs from SQS, a row here fails, not a user. A row an implementation cannot hold (moto's clock
 * cannot be moved) is skipped on it with the reason; a row where an implementation is known to
 * differ from SQS's documented behaviour is expected to fail on it (`it.fails`), so a fix shows.
 * Both lists, with the SQS documentation they rest on, are in support/implementations.ts.
 *
 * On moto, time passes on the wall clock: a row waits for an event by polling for it with a
 * generous deadline, and never asserts that something happened within a time.
 */
import { createHash } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueRefusedError } from '../../lib/queue/queue-refused.js';
import type { RawSendQueue } from '../support/sqs/sqs-queue.js';
import { motoServerPath } from '../deployed/moto-server.js';
import { embedded, type Implementation, type Row, sqsOnMoto, type Subject } from './support/implementations.js';

const MOTO = motoServerPath();
const CI = process.env.CI === 'true';
if (!MOTO && !CI) {
  console.warn(
    'queue contract: the SQS half is skipped, moto_server is not on the PATH. Install it with ' +
      'pip install "moto[server]==5.2.*" (CI installs it and fails without it).',
  );
}

describe('the queue contract runs on SQS too', () => {
  it.runIf(CI)('in CI (CI=true), moto_server is installed: its absence fails the run', () => {
    expect(MOTO, 'moto_server is not on the PATH: CI installs it with pip install "moto[server]==5.2.*"').toBeDefined();
  });
});

const bodies = (records: SQSRecord[]) => records.map((r) => r.body);
const count = (r: SQSRecord | undefined) => r?.attributes.ApproximateReceiveCount;

async function refusal(call: Promise<unknown>): Promise<QueueRefusedError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call was refused').toBeInstanceOf(QueueRefusedError);
  return error as QueueRefusedError;
}

/** Sends `bodies` in `groupId`, each under its own deduplication id. */
async function sendAll(queue: RawSendQueue, groupId: string, ...all: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const body of all) ids.push((await queue.sendBody({ body, groupId, deduplicationId: `d-${body}` })).messageId);
  return ids;
}

const WHY = 'why in test/queue/support/implementations.ts';
const IMPLEMENTATIONS: Implementation[] = [embedded(), sqsOnMoto(MOTO)];

describe.each(IMPLEMENTATIONS.map((impl) => [impl.name, impl] as const))('the queue contract: %s', (_name, impl) => {
  const rows = impl.unavailable ? `skipped: ${impl.unavailable} (CI=true fails instead)` : 'SQS FIFO semantics';
  describe.skipIf(impl.unavailable !== undefined)(rows, () => {
    beforeAll(() => impl.start(), 120_000);
    afterAll(() => impl.stop());

    const make = (visibilitySeconds = 30, maxReceiveCount = 5): Promise<Subject> =>
      impl.make({ visibilitySeconds, maxReceiveCount });

    /** A row, skipped where the implementation cannot hold it, expected to fail where it differs from SQS. */
    const row = (key: Row, title: string, fn: () => Promise<void>) => {
      if (impl.cannot[key]) it.skip(`${title} [${impl.name}: cannot run this row; ${WHY}]`, fn);
      else if (impl.differs[key]) it.fails(`${title} [${impl.name}: differs from SQS, expected to fail; ${WHY}]`, fn);
      else it(title, fn);
    };

    describe('FIFO groups', () => {
      it('a group with a batch in flight delivers nothing more of it; other groups are still delivered', async () => {
        const { queue } = await make();
        await sendAll(queue, 'a', 'a1', 'a2');
        await sendAll(queue, 'b', 'b1');
        const [a1] = await queue.receive(1);
        expect(a1?.body).toBe('a1');
        expect(bodies(await queue.receive(10))).toEqual(['b1']);
        expect(await queue.receive(10)).toEqual([]);
        await queue.delete(a1!);
        expect(bodies(await queue.receive(10))).toEqual(['a2']);
      });

      it('a group is delivered in send order, one message after another', async () => {
        const { queue } = await make();
        await sendAll(queue, 'g', 'g1', 'g2', 'g3', 'g4');
        const seen: string[] = [];
        for (let i = 0; i < 4; i++) {
          const [record, ...more] = await queue.receive(1);
          expect(more).toEqual([]);
          seen.push(record!.body);
          await queue.delete(record!);
        }
        expect(seen).toEqual(['g1', 'g2', 'g3', 'g4']);
        expect(await queue.receive(10)).toEqual([]);
      });
    });

    describe('visibility', () => {
      it('a received message is hidden until its visibility timeout ends', async () => {
        const { queue } = await make(30);
        await sendAll(queue, 'g', 'm');
        expect(bodies(await queue.receive(1))).toEqual(['m']);
        expect(await queue.receive(10)).toEqual([]);
      });

      it('after its visibility timeout the message comes back, received once more', async () => {
        const s = await make(1);
        await sendAll(s.queue, 'g', 'm');
        const [first] = await s.queue.receive(1);
        let back: SQSRecord[] = [];
        await s.pass(1, async () => (back = await s.queue.receive(10)).length > 0);
        expect(bodies(back)).toEqual(['m']);
        expect(back[0]!.messageId).toBe(first!.messageId);
        expect(count(back[0])).toBe('2');
      });

      it("changeVisibility extends the timeout: the message stays hidden past the queue's own", async () => {
        const s = await make(1);
        await sendAll(s.queue, 'a', 'a1');
        await sendAll(s.queue, 'b', 'b1');
        const received = await s.queue.receive(10);
        expect(bodies(received).sort()).toEqual(['a1', 'b1']);
        await s.queue.changeVisibility(
          received.find((r) => r.body === 'a1')!,
          30,
        );
        // b1 coming back shows the queue's timeout has passed; a1, extended, must not have come with it.
        const seen: SQSRecord[] = [];
        await s.pass(1, async () => {
          seen.push(...(await s.queue.receive(10)));
          return seen.some((r) => r.body === 'b1');
        });
        seen.push(...(await s.queue.receive(10)));
        expect(bodies(seen).filter((b) => b === 'a1')).toEqual([]);
      });

      it('changeVisibility to 0 makes the message visible at once', async () => {
        const { queue } = await make(30);
        await sendAll(queue, 'g', 'm');
        const [first] = await queue.receive(1);
        await queue.changeVisibility(first!, 0);
        const [again] = await queue.receive(1);
        expect(again?.messageId).toBe(first!.messageId);
        expect(count(again)).toBe('2');
      });

      row(
        'stale-handle',
        'a receipt handle goes stale once the message is received again: a visibility change with it is refused',
        async () => {
          const { queue } = await make(30);
          await sendAll(queue, 'g', 'm');
          const [first] = await queue.receive(1);
          await queue.changeVisibility(first!, 0);
          const [second] = await queue.receive(1);
          expect(second?.receiptHandle).not.toBe(first!.receiptHandle);
          const refused = await refusal(queue.changeVisibility(first!, 10));
          expect(['ReceiptHandleIsInvalid', 'InvalidParameterValue', 'MessageNotInflight']).toContain(refused.code);
          await queue.changeVisibility(second!, 10);
        },
      );

      row(
        'expired-handle',
        'a receipt handle expires with its visibility timeout: a change with it is refused',
        async () => {
          const s = await make(1);
          await sendAll(s.queue, 'g', 'm');
          const [record] = await s.queue.receive(1);
          await s.pass(1, async () => true);
          await refusal(s.queue.changeVisibility(record!, 10));
        },
      );

      it('a visibility timeout above 43200 s (12 hours) is refused in any call; one within it is accepted', async () => {
        const { queue } = await make(30);
        await sendAll(queue, 'g', 'm');
        const [record] = await queue.receive(1);
        expect((await refusal(queue.changeVisibility(record!, 43_201))).code).toBe('InvalidParameterValue');
        await queue.changeVisibility(record!, 3600);
        expect(await queue.receive(10)).toEqual([]);
      });

      row(
        'ceiling-from-first-receive',
        'the 12 hours count from the first receive, not the send: a change that would end later is refused',
        async () => {
          const s = await make(30);
          await sendAll(s.queue, 'g', 'm');
          s.moveClock!(3600);
          const [record] = await s.queue.receive(1);
          // An hour after the send, a whole 12 hours from this first receive is still allowed.
          await s.queue.changeVisibility(record!, 43_200);
          s.moveClock!(3600);
          await s.queue.changeVisibility(record!, 39_600);
          expect((await refusal(s.queue.changeVisibility(record!, 39_601))).code).toBe('InvalidParameterValue');
        },
      );
    });

    describe('deduplication', () => {
      it('a send under a deduplication id seen within 5 minutes is accepted and delivered once', async () => {
        const { queue } = await make();
        await queue.sendBody({ body: 'first', groupId: 'g', deduplicationId: 'same' });
        await queue.sendBody({ body: 'second', groupId: 'g', deduplicationId: 'same' });
        const [record, ...more] = await queue.receive(10);
        expect(record?.body).toBe('first');
        expect(more).toEqual([]);
        await queue.delete(record!);
        expect(await queue.receive(10)).toEqual([]);
      });

      row('dedup-same-message-id', "the duplicate's answer is the first send's messageId", async () => {
        const { queue } = await make();
        const first = await queue.sendBody({ body: 'first', groupId: 'g', deduplicationId: 'same' });
        const second = await queue.sendBody({ body: 'second', groupId: 'g', deduplicationId: 'same' });
        expect(second.messageId).toBe(first.messageId);
      });

      row('dedup-after-delete', 'the deduplication id is remembered after its message is deleted', async () => {
        const { queue } = await make();
        await queue.sendBody({ body: 'first', groupId: 'g', deduplicationId: 'same' });
        const [record] = await queue.receive(1);
        await queue.delete(record!);
        await queue.sendBody({ body: 'again', groupId: 'g', deduplicationId: 'same' });
        expect(await queue.receive(10)).toEqual([]);
      });

      row('dedup-window-ends', 'after 5 minutes the same deduplication id is a new message', async () => {
        const s = await make();
        const first = await s.queue.sendBody({ body: 'first', groupId: 'g', deduplicationId: 'same' });
        const [record] = await s.queue.receive(1);
        await s.queue.delete(record!);
        s.moveClock!(5 * 60);
        const again = await s.queue.sendBody({ body: 'again', groupId: 'g', deduplicationId: 'same' });
        expect(again.messageId).not.toBe(first.messageId);
        expect(bodies(await s.queue.receive(10))).toEqual(['again']);
      });
    });

    describe('receive counts', () => {
      it('ApproximateReceiveCount rises with each receive; ApproximateFirstReceiveTimestamp is set at the first and kept', async () => {
        const s = await make(30);
        await sendAll(s.queue, 'g', 'm');
        const [first] = await s.queue.receive(1);
        const firstAt = first!.attributes.ApproximateFirstReceiveTimestamp;
        expect(count(first)).toBe('1');
        expect(Number(firstAt)).toBeGreaterThan(0);
        await s.queue.changeVisibility(first!, 0);
        s.moveClock?.(60);
        const [second] = await s.queue.receive(1);
        expect(count(second)).toBe('2');
        expect(second!.attributes.ApproximateFirstReceiveTimestamp).toBe(firstAt);
      });
    });

    describe('dead letters', () => {
      /** A message received `maxReceiveCount` (2) times, each time made visible again at once. */
      async function receivedTwice(): Promise<Subject> {
        const s = await make(30, 2);
        await sendAll(s.queue, 'g', 'm');
        for (const n of ['1', '2']) {
          const [record] = await s.queue.receive(1);
          expect(count(record)).toBe(n);
          await s.queue.changeVisibility(record!, 0);
        }
        return s;
      }

      it('a message received maxReceiveCount times moves to the dead-letter queue on the next receive', async () => {
        const { queue } = await receivedTwice();
        expect(await queue.deadLetters()).toEqual([]);
        expect(await queue.receive(10)).toEqual([]);
        const letters = await queue.deadLetters();
        expect(bodies(letters)).toEqual(['m']);
        expect(letters[0]!.attributes.MessageGroupId).toBe('g');
        // Reading the dead letters leaves them there.
        expect(bodies(await queue.deadLetters())).toEqual(['m']);
        expect(await queue.receive(10)).toEqual([]);
      });

      it('a redrive moves every dead letter back to its group, its receive count starting over', async () => {
        const { queue } = await receivedTwice();
        expect(await queue.receive(10)).toEqual([]);
        expect(await queue.redrive()).toBe(1);
        expect(await queue.deadLetters()).toEqual([]);
        const [back, ...more] = await queue.receive(10);
        expect(more).toEqual([]);
        expect(back?.body).toBe('m');
        expect(back!.attributes.MessageGroupId).toBe('g');
        expect(count(back)).toBe('1');
      });
    });

    describe('batches', () => {
      it('a receive of more than 10, or of none, is refused as SQS refuses it', async () => {
        const { queue } = await make();
        await sendAll(queue, 'g', 'm');
        expect((await refusal(queue.receive(11))).code).toBe('InvalidParameterValue');
        expect((await refusal(queue.receive(0))).code).toBe('InvalidParameterValue');
        expect(bodies(await queue.receive(10))).toEqual(['m']);
      });

      it("a batch holds at most 10 messages, a group's in send order", async () => {
        const { queue } = await make();
        const all = Array.from({ length: 12 }, (_, i) => `g${String(i + 1).padStart(2, '0')}`);
        await sendAll(queue, 'g', ...all);
        expect(bodies(await queue.receive(10))).toEqual(all.slice(0, 10));
        // The group's batch is in flight: its last two wait for it.
        expect(await queue.receive(10)).toEqual([]);
      });

      row('batch-group-first', 'a batch holds as many of one group as it can before another group', async () => {
        const { queue } = await make();
        await sendAll(queue, 'a', 'a1');
        await sendAll(queue, 'b', 'b1');
        await sendAll(queue, 'a', 'a2');
        await sendAll(queue, 'b', 'b2');
        expect(bodies(await queue.receive(10))).toEqual(['a1', 'a2', 'b1', 'b2']);
      });

      it("a batch across groups holds each group's messages in send order", async () => {
        const { queue } = await make();
        await sendAll(queue, 'a', 'a1');
        await sendAll(queue, 'b', 'b1');
        await sendAll(queue, 'a', 'a2');
        await sendAll(queue, 'b', 'b2');
        const batch = await queue.receive(10);
        const ofGroup = (g: string) => bodies(batch.filter((r) => r.attributes.MessageGroupId === g));
        expect(batch).toHaveLength(4);
        expect(ofGroup('a')).toEqual(['a1', 'a2']);
        expect(ofGroup('b')).toEqual(['b1', 'b2']);
      });
    });

    describe('sends', () => {
      it('a send without a group is refused as SQS refuses it, and nothing is queued', async () => {
        const { queue } = await make();
        const refused = await refusal(queue.sendBody({ body: 'b', groupId: '', deduplicationId: 'd' }));
        expect(refused.code).toBe('MissingParameter');
        expect(await queue.receive(10)).toEqual([]);
      });

      row(
        'send-body-checks',
        'an empty body, or one with a character outside XML, is refused and not queued',
        async () => {
          const { queue } = await make();
          await refusal(queue.sendBody({ body: '', groupId: 'g', deduplicationId: 'd1' }));
          const refused = await refusal(queue.sendBody({ body: 'a\u0000b', groupId: 'g', deduplicationId: 'd2' }));
          expect(refused.code).toBe('InvalidMessageContents');
          expect(await queue.receive(10)).toEqual([]);
        },
      );
    });

    describe('records', () => {
      it("a record has the shape of Lambda's SQS event source, with what the worker reads", async () => {
        const s = await make();
        const body = JSON.stringify({ v: 1, runId: 7 });
        const { messageId } = await s.queue.sendBody({ body, groupId: 'repo-1', deduplicationId: 'run-7-1' });
        const [record] = await s.queue.receive(1);
        expect(record).toMatchObject({
          messageId,
          body,
          eventSource: 'aws:sqs',
          eventSourceARN: s.arn,
          messageAttributes: {},
          attributes: {
            ApproximateReceiveCount: '1',
            MessageGroupId: 'repo-1',
            MessageDeduplicationId: 'run-7-1',
          },
        });
        expect(record!.receiptHandle).toMatch(/\S/);
        expect(record!.awsRegion).toMatch(/\S/);
        expect(Number(record!.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThan(0);
      });

      row(
        'record-send-details',
        'a record carries its send time, sender, body digest and sequence number',
        async () => {
          const { queue } = await make();
          await sendAll(queue, 'g', 'm');
          const [record] = await queue.receive(1);
          const a = record!.attributes;
          expect(Number(a.SentTimestamp)).toBeGreaterThan(0);
          expect(Number(a.SentTimestamp)).toBeLessThanOrEqual(Number(a.ApproximateFirstReceiveTimestamp));
          expect(a.SenderId).toMatch(/\S/);
          expect(a.SequenceNumber).toMatch(/^\d+$/);
          expect(record!.md5OfBody).toBe(createHash('md5').update('m').digest('hex'));
        },
      );
    });
  });
});
