/**
 * The embedded queue behind the `Queue` contract: every call a promise, every refusal a
 * `QueueRefusedError` with SQS's code, the worker's deferral among them; in memory and journaled.
 */
import { describe, expect, it } from 'vitest';
import type { RunMessage } from '../../../lib/model.js';
import { embeddedQueue, embeddedRunQueue } from '../../../lib/queue/embedded/queue.js';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import { bodies, bothWays, setup } from './both-ways.js';

bothWays(() => {
  describe('embeddedQueue: the deferral', () => {
    it("the worker's deferral rejects a refused change, as ChangeMessageVisibility does: a stale handle, or past 12 hours", async () => {
      const { queue, send, advance } = setup();
      send('g');
      const defer = embeddedQueue(queue).changeVisibility;
      const [first] = queue.receive();
      advance(30_000);
      const [second] = queue.receive();
      await expect(defer(first!, 60)).rejects.toMatchObject({ code: 'ReceiptHandleIsInvalid' });
      await expect(defer(second!, 12 * 3600)).rejects.toMatchObject({ code: 'InvalidParameterValue' });
      await defer(second!, 60);
      expect(queue.stats()).toMatchObject({ visible: 0, inFlight: 1 });
      expect(queue.nextVisibleAt()).toBe(Number(second!.attributes.ApproximateFirstReceiveTimestamp) + 90_000);
    });

    it('a refused deferral is a QueueRefusedError naming the message', async () => {
      const { queue, send, advance } = setup();
      send('g');
      const [record] = queue.receive();
      advance(30_000);
      const refusal = await embeddedQueue(queue)
        .changeVisibility(record!, 10)
        .catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(QueueRefusedError);
      expect((refusal as Error).message).toContain(record!.messageId);
    });

    it('counts a deferral in units of `unitMs`: 1 ms a second hides a message for as many ms', async () => {
      const { queue, send, advance } = setup();
      send('g');
      const [record] = queue.receive();
      await embeddedQueue(queue, { unitMs: 1 }).changeVisibility(record!, 5);
      advance(4);
      expect(queue.receive()).toEqual([]);
      advance(1);
      expect(bodies(queue.receive())).toEqual(['g-1']);
    });
  });

  describe('embeddedQueue: send, receive, delete', () => {
    it('sends a run message as its JSON, in its group, under its deduplication id; a duplicate is one message', async () => {
      const { queue } = setup();
      const q = embeddedQueue(queue);
      const message = { v: 1, runId: 7 } as unknown as RunMessage;
      await q.send(message, 'run-7', 'delivery-1');
      await q.send(message, 'run-7', 'delivery-1');
      const records = await q.receive(10);
      expect(records.map((r) => JSON.parse(r.body) as unknown)).toEqual([message]);
      expect(records[0]!.attributes).toMatchObject({ MessageGroupId: 'run-7', MessageDeduplicationId: 'delivery-1' });
    });

    it('tells what only the embedded queue can: its name, its receive limit, what it holds', async () => {
      const { queue } = setup({ maxReceiveCount: 4 });
      const q = embeddedQueue(queue);
      await q.send({ v: 1, runId: 9 } as unknown as RunMessage, 'g', 'd');
      expect([q.name, q.maxReceiveCount, q.size()]).toEqual([queue.name, 4, 1]);
      expect(q.bodies()).toEqual([JSON.stringify({ v: 1, runId: 9 })]);
      expect(q.stats()).toMatchObject({ visible: 1, inFlight: 0, sent: 1 });
    });

    it('refuses what SQS refuses as a rejection: a send without a group, a receive of more than 10', async () => {
      const q = embeddedQueue(setup().queue);
      await expect(q.send({ v: 1 } as unknown as RunMessage, '', 'd')).rejects.toMatchObject({
        name: 'QueueRefusedError',
        code: 'MissingParameter',
      });
      await expect(q.receive(11)).rejects.toMatchObject({ code: 'InvalidParameterValue' });
    });

    it('deletes with a live handle; a stale one is refused and the message stays', async () => {
      const { queue, advance } = setup();
      const q = embeddedQueue(queue);
      await q.send({ v: 1 } as unknown as RunMessage, 'g', 'd');
      const [first] = await q.receive(1);
      advance(30_000);
      const [second] = await q.receive(1);
      await expect(q.delete(first!)).rejects.toMatchObject({ code: 'ReceiptHandleIsInvalid' });
      expect(queue.size()).toBe(1);
      await q.delete(second!);
      expect(queue.size()).toBe(0);
    });
  });

  describe('embeddedQueue: dead letters', () => {
    it('lists the dead letters oldest death first, without removing them, and redrives them all', async () => {
      const { queue, send, advance } = setup({ maxReceiveCount: 1 });
      const q = embeddedQueue(queue);
      send('a');
      send('b');
      expect(bodies(queue.receive(10))).toEqual(['a-1', 'b-2']);
      advance(30_000);
      expect(queue.receive(10)).toEqual([]);
      expect(bodies(await q.deadLetters())).toEqual(['a-1', 'b-2']);
      expect(bodies(await q.deadLetters())).toEqual(['a-1', 'b-2']);
      expect(await q.redrive()).toBe(2);
      expect(await q.deadLetters()).toEqual([]);
      expect(bodies(await q.receive(10))).toEqual(['a-1', 'b-2']);
    });
  });

  describe('embeddedRunQueue', () => {
    it('sends only, as sqsRunQueue does: the message as JSON', async () => {
      const { queue } = setup();
      const runs = embeddedRunQueue(queue);
      expect(Object.keys(runs)).toEqual(['send']);
      await runs.send({ v: 1, runId: 8 } as unknown as RunMessage, 'g', 'd');
      expect(queue.bodies()).toEqual([JSON.stringify({ v: 1, runId: 8 })]);
    });
  });
});
