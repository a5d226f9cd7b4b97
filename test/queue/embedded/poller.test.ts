/**
 * The local stand-in for Lambda's SQS event source mapping: batch responses read as Lambda reads
 * them, deletes, concurrency, stop and drain, on the embedded queue in memory and journaled.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { QueueOptions } from '../../../lib/queue/embedded/fifo-queue.js';
import { type PolledQueue, QueuePoller } from '../../../lib/queue/embedded/poller.js';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import { embeddedQueue } from '../../../lib/queue/embedded/queue.js';
import { bodies, bothWays, setup } from './both-ways.js';

bothWays(() => {
  type Handler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

  function pollerSetup(handler: Handler, opts: Partial<QueueOptions> = {}) {
    const base = setup(opts);
    const errors: unknown[] = [];
    const poller = new QueuePoller(embeddedQueue(base.queue), handler, {
      onError: (e) => errors.push(e),
      idleDelayMs: 5,
    });
    return { ...base, poller, errors };
  }

  describe('QueuePoller: batch responses', () => {
    const fail = (...ids: string[]): SQSBatchResponse => ({
      batchItemFailures: ids.map((itemIdentifier) => ({ itemIdentifier })),
    });

    it.each<{
      label: string;
      respond: (records: SQSRecord[]) => SQSBatchResponse | void;
      kept: string[];
      errors: number;
    }>([
      { label: 'void: all deleted', respond: () => undefined, kept: [], errors: 0 },
      { label: 'empty list: all deleted', respond: () => fail(), kept: [], errors: 0 },
      { label: 'one failure kept', respond: (rs) => fail(rs[1]!.messageId), kept: ['b-2'], errors: 0 },
      {
        label: 'unknown id: whole batch kept',
        respond: () => fail('not-in-batch'),
        kept: ['a-1', 'b-2', 'c-3'],
        errors: 1,
      },
      {
        label: 'malformed list: whole batch kept',
        respond: () => ({ batchItemFailures: 'x' }) as unknown as SQSBatchResponse,
        kept: ['a-1', 'b-2', 'c-3'],
        errors: 1,
      },
    ])('$label', async ({ respond, kept, errors: errorCount }) => {
      const { queue, send, poller, errors, advance } = pollerSetup(async (e) => respond(e.Records));
      send('a');
      send('b');
      send('c');
      expect(await poller.pollOnce()).toBe(3);
      expect(errors).toHaveLength(errorCount);
      expect(queue.size()).toBe(kept.length);
      advance(30_000);
      const again = queue.receive(10);
      expect(bodies(again)).toEqual(kept);
      for (const r of again) expect(r.attributes.ApproximateReceiveCount).toBe('2');
    });

    it('a handler that throws leaves the whole batch for redelivery', async () => {
      const boom = new Error('boom');
      const { queue, send, poller, errors, advance } = pollerSetup(async () => {
        throw boom;
      });
      send('a');
      send('b');
      expect(await poller.pollOnce()).toBe(2);
      expect(errors).toEqual([boom]);
      expect(queue.stats()).toMatchObject({ inFlight: 2, visible: 0 });
      advance(30_000);
      expect(queue.stats()).toMatchObject({ inFlight: 0, visible: 2 });
    });

    it('keeps FIFO order when a failed record and the rest of its group are reported', async () => {
      const seen: string[] = [];
      const { queue, send, poller, advance } = pollerSetup(async ({ Records }) => {
        const failures: string[] = [];
        const failedGroups = new Set<string>();
        for (const r of Records) {
          const group = r.attributes.MessageGroupId!;
          seen.push(`${r.body}#${r.attributes.ApproximateReceiveCount}`);
          // Like the Lambda-side FIFO processor: after a failure, the rest of the group fails too.
          if (failedGroups.has(group) || (r.body === 'a-2' && r.attributes.ApproximateReceiveCount === '1')) {
            failedGroups.add(group);
            failures.push(r.messageId);
          }
        }
        return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
      });
      for (const g of ['a', 'a', 'b', 'a']) send(g);
      await poller.pollOnce();
      expect(queue.size()).toBe(2);
      expect(await poller.pollOnce()).toBe(0);
      advance(30_000);
      await poller.pollOnce();
      expect(queue.size()).toBe(0);
      expect(seen).toEqual(['a-1#1', 'a-2#1', 'a-4#1', 'b-3#1', 'a-2#2', 'a-4#2']);
    });

    it('reports a delete that comes after the visibility timeout', async () => {
      const { queue, send, poller, errors, advance } = pollerSetup(async () => {
        advance(31_000);
      });
      send('a');
      await poller.pollOnce();
      expect(errors).toHaveLength(1);
      expect(String(errors[0])).toMatch(/expired/);
      expect(queue.stats().visible).toBe(1);
    });
  });

  describe('QueuePoller: running', () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    it('several pollers with concurrency never hold a message or a group twice at once', async () => {
      // The clock stands still: a message leaves flight only by its delete, however slow the machine.
      const { queue } = setup();
      const active = new Set<string>();
      const activeGroups = new Set<string>();
      const processed: string[] = [];
      const violations: string[] = [];
      const handler: Handler = async ({ Records }) => {
        const groups = new Set(Records.map((r) => r.attributes.MessageGroupId!));
        for (const r of Records) {
          if (active.has(r.messageId)) violations.push(`message ${r.body}`);
          active.add(r.messageId);
        }
        for (const g of groups) {
          if (activeGroups.has(g)) violations.push(`group ${g}`);
          activeGroups.add(g);
        }
        await sleep(1 + (Records.length % 3));
        for (const r of Records) {
          active.delete(r.messageId);
          processed.push(r.body);
        }
        for (const g of groups) activeGroups.delete(g);
      };
      const pollers = [
        new QueuePoller(embeddedQueue(queue), handler, { concurrency: 4, batchSize: 3, idleDelayMs: 1 }),
        new QueuePoller(embeddedQueue(queue), handler, { concurrency: 2, batchSize: 2, idleDelayMs: 1 }),
      ];
      pollers.forEach((p) => p.start());
      const groups = ['g0', 'g1', 'g2', 'g3', 'g4'];
      for (let i = 0; i < 60; i++) {
        const g = groups[i % groups.length]!;
        queue.send({ body: `${g}:${i}`, groupId: g, deduplicationId: `d${i}` });
        if (i % 7 === 0) await sleep(1);
      }
      await pollers[0]!.drain(10_000);
      await Promise.all(pollers.map((p) => p.stop()));
      expect(violations).toEqual([]);
      expect(processed).toHaveLength(60);
      expect(new Set(processed).size).toBe(60);
      for (const g of groups) {
        const order = processed.filter((b) => b.startsWith(`${g}:`)).map((b) => Number(b.split(':')[1]));
        expect(order).toEqual([...order].sort((x, y) => x - y));
      }
    });

    it('stop waits for the batch in the handler', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let finished = false;
      const { queue, send, poller } = pollerSetup(async () => {
        await gate;
        finished = true;
      });
      send('a');
      poller.start();
      while (queue.stats().inFlight === 0) await sleep(2);
      const stopped = poller.stop();
      await sleep(10);
      expect(finished).toBe(false);
      release();
      await stopped;
      expect(finished).toBe(true);
      expect(queue.size()).toBe(0);
      expect(poller.isRunning).toBe(false);
    });

    it('drain polls by itself when not started and ignores dead letters', async () => {
      const { queue } = setup({ maxReceiveCount: 2 });
      const errors: unknown[] = [];
      const poller = new QueuePoller(
        embeddedQueue(queue),
        async ({ Records }) => {
          const bad = Records.filter((r) => r.body === 'bad');
          // Handed back at once, as the worker's deferral does, rather than after a timeout.
          for (const r of bad) queue.changeVisibility(r.receiptHandle, 0);
          return { batchItemFailures: bad.map((r) => ({ itemIdentifier: r.messageId })) };
        },
        { onError: (e) => errors.push(e) },
      );
      queue.send({ body: 'bad', groupId: 'g1', deduplicationId: '1' });
      queue.send({ body: 'good', groupId: 'g2', deduplicationId: '2' });
      await poller.drain(5_000);
      expect(queue.size()).toBe(0);
      expect(queue.deadLetters.map((d) => d.record.body)).toEqual(['bad']);
      expect(errors).toEqual([]);
    });

    it('drain rejects after its timeout while a message stays in flight', async () => {
      const { send, poller } = pollerSetup(async () => {
        throw new Error('always');
      });
      send('a');
      await expect(poller.drain(50)).rejects.toThrow(/did not drain within 50 ms.*"inFlight":1/);
    });
  });
});

describe('QueuePoller: on the contract', () => {
  const record = (id: string): SQSRecord =>
    ({ messageId: id, receiptHandle: `h-${id}`, body: id, attributes: {} }) as unknown as SQSRecord;

  it('drives any queue that keeps the contract (receive, delete): what the handler did not fail is deleted', async () => {
    const waiting = [record('a'), record('b')];
    const deleted: string[] = [];
    const queue: PolledQueue = {
      name: 'scripted.fifo',
      receive: async (max) => waiting.splice(0, max),
      delete: async (r) => void deleted.push(r.receiptHandle),
      size: () => waiting.length,
      stats: () => ({ waiting: waiting.length }),
    };
    const poller = new QueuePoller(queue, async () => ({ batchItemFailures: [{ itemIdentifier: 'b' }] }));
    expect(await poller.pollOnce()).toBe(2);
    expect(deleted).toEqual(['h-a']);
  });

  it("a delete the queue refuses is reported as a late delete; any other fault of it is left to the queue's journal", async () => {
    const errors: unknown[] = [];
    const faults = [new QueueRefusedError('ReceiptHandleIsInvalid', 'stale'), new Error('journal down')];
    const queue: PolledQueue = {
      name: 'scripted.fifo',
      receive: async () => [record('a'), record('b')],
      delete: async () => Promise.reject(faults.shift()),
      size: () => 0,
      stats: () => ({}),
    };
    await new QueuePoller(queue, async () => undefined, { onError: (e) => errors.push(e) }).pollOnce();
    await new Promise((r) => setImmediate(r));
    expect(errors.map(String)).toEqual([
      'Error: receipt handle of a expired before the delete; the message will be delivered again',
    ]);
  });
});
