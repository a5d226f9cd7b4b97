/**
 * The embedded queue's SQS FIFO semantics (records, deduplication, group order, visibility and
 * receipt handles, dead letters), twice: in memory, and journaled to dynalite (both-ways.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import { MessageGroups } from '../../../lib/queue/embedded/groups.js';
import { bodies, bothWays, NAME, newQueue, setup } from './both-ways.js';

bothWays(() => {
  describe('EmbeddedFifoQueue: records', () => {
    it('delivers the record shape of the Lambda SQS event source, with what the worker reads', () => {
      const { queue, advance } = setup();
      const sent = queue.send({ body: '{"v":1,"runId":7}', groupId: 'repo-1', deduplicationId: 'run-7-1' });
      advance(250);
      const [record, ...rest] = queue.receive(10);
      expect(rest).toEqual([]);
      expect(record).toMatchObject({
        messageId: sent.messageId,
        receiptHandle: expect.any(String),
        body: '{"v":1,"runId":7}',
        attributes: {
          ApproximateReceiveCount: '1',
          MessageGroupId: 'repo-1',
          MessageDeduplicationId: 'run-7-1',
        },
        messageAttributes: {},
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:local:000000000000:${NAME}`,
        awsRegion: 'local',
      });
    });

    it.each([
      ['empty body', { body: '', groupId: 'g', deduplicationId: 'd' }, 'MissingParameter'],
      ['NUL in body', { body: 'a\u0000b', groupId: 'g', deduplicationId: 'd' }, 'InvalidMessageContents'],
      ['oversized body', { body: 'x'.repeat(262_145), groupId: 'g', deduplicationId: 'd' }, 'InvalidParameterValue'],
      ['missing group', { body: 'b', groupId: '', deduplicationId: 'd' }, 'MissingParameter'],
      ['space in group', { body: 'b', groupId: 'a b', deduplicationId: 'd' }, 'InvalidParameterValue'],
      ['129-char dedup id', { body: 'b', groupId: 'g', deduplicationId: 'x'.repeat(129) }, 'InvalidParameterValue'],
    ])('rejects a send with %s', (_label, input, code) => {
      const { queue } = setup();
      expect(() => queue.send(input)).toThrow(expect.objectContaining({ name: 'QueueRefusedError', code }));
      expect(queue.size()).toBe(0);
    });

    it.each([0, 11, 2.5])('rejects receive(%s) as ReceiveMessage does', (max) => {
      const { queue } = setup();
      expect(() => queue.receive(max)).toThrow(QueueRefusedError);
    });

    it('defaults to a 30 s visibility timeout and 5 receives', () => {
      const clock = { t: 0 };
      const queue = newQueue({ name: NAME, now: () => clock.t });
      queue.send({ body: 'x', groupId: 'g', deduplicationId: 'd' });
      for (let i = 0; i < 5; i++) {
        expect(queue.receive()).toHaveLength(1);
        clock.t += 29_999;
        expect(queue.receive()).toEqual([]);
        clock.t += 1;
      }
      expect(queue.receive()).toEqual([]);
      expect(queue.deadLetters).toHaveLength(1);
    });
  });

  describe('EmbeddedFifoQueue: deduplication', () => {
    const WINDOW = 5 * 60 * 1000;
    it.each([
      { after: 0, duplicate: true },
      { after: WINDOW - 1, duplicate: true },
      { after: WINDOW, duplicate: false },
      { after: WINDOW + 60_000, duplicate: false },
    ])('a resend $after ms later is duplicate=$duplicate', ({ after, duplicate }) => {
      const { queue, advance } = setup();
      const first = queue.send({ body: 'one', groupId: 'g', deduplicationId: 'delivery-1' });
      advance(after);
      const again = queue.send({ body: 'one again', groupId: 'g', deduplicationId: 'delivery-1' });
      expect(again.duplicate).toBe(duplicate);
      if (duplicate) {
        expect(again).toEqual({ ...first, duplicate: true });
        expect(queue.size()).toBe(1);
      } else {
        expect(again.messageId).not.toBe(first.messageId);
        expect(queue.size()).toBe(2);
      }
      expect(queue.stats()).toMatchObject({ sent: duplicate ? 1 : 2, duplicatesDropped: duplicate ? 1 : 0 });
    });

    it('deduplicates across groups and after the original was deleted, within the window', () => {
      const { queue, advance } = setup();
      queue.send({ body: 'x', groupId: 'g1', deduplicationId: 'same' });
      const [r] = queue.receive();
      expect(queue.delete(r!.receiptHandle)).toBe(true);
      advance(1000);
      expect(queue.send({ body: 'x', groupId: 'g2', deduplicationId: 'same' }).duplicate).toBe(true);
      expect(queue.size()).toBe(0);
    });
  });

  describe('EmbeddedFifoQueue: FIFO order', () => {
    it('returns each group in order, oldest group first, never a message twice', () => {
      const { queue, send } = setup();
      for (const g of ['a', 'a', 'b', 'a', 'c', 'b']) send(g);
      const got = queue.receive(10);
      expect(bodies(got)).toEqual(['a-1', 'a-2', 'a-4', 'b-3', 'b-6', 'c-5']);
      expect(new Set(got.map((r) => r.messageId)).size).toBe(got.length);
      expect(queue.receive(10)).toEqual([]);
    });

    it('holds back a group while any of its messages is in flight, across receives', () => {
      const { queue, send } = setup();
      for (const g of ['a', 'a', 'b', 'a']) send(g);
      const first = queue.receive(1);
      expect(bodies(first)).toEqual(['a-1']);
      expect(bodies(queue.receive(1))).toEqual(['b-3']);
      expect(queue.receive(10)).toEqual([]);
      expect(queue.delete(first[0]!.receiptHandle)).toBe(true);
      expect(bodies(queue.receive(10))).toEqual(['a-2', 'a-4']);
    });

    it('caps a receive at max, continuing a group on the next receive after deletes', () => {
      const { queue, send } = setup();
      for (let i = 0; i < 5; i++) send('a');
      const first = queue.receive(3);
      expect(bodies(first)).toEqual(['a-1', 'a-2', 'a-3']);
      for (const r of first) queue.delete(r.receiptHandle);
      expect(bodies(queue.receive(3))).toEqual(['a-4', 'a-5']);
    });

    it('blocks the group again if only part of a multi-message receive is made visible', () => {
      const { queue, send } = setup();
      send('a');
      send('a');
      const [r1] = queue.receive(2);
      expect(queue.changeVisibility(r1!.receiptHandle, 0)).toBe(true);
      // a-2 is still in flight, so a-1 must wait even though it is visible.
      expect(queue.receive(10)).toEqual([]);
      expect(queue.stats()).toMatchObject({ visible: 1, inFlight: 1 });
    });
  });

  describe('EmbeddedFifoQueue: visibility timeout and receipt handles', () => {
    it('redelivers after the timeout with a higher count and a new handle; old handles are refused', () => {
      const { queue, send, advance } = setup({ visibilityTimeoutMs: 10_000 });
      send('g');
      const [first] = queue.receive();
      advance(9_999);
      expect(queue.receive()).toEqual([]);
      expect(queue.stats()).toMatchObject({ visible: 0, inFlight: 1 });
      advance(1);
      expect(queue.stats()).toMatchObject({ visible: 1, inFlight: 0 });
      // Expired but not yet received again: FIFO queues already refuse the handle.
      expect(queue.delete(first!.receiptHandle)).toBe(false);
      const [second] = queue.receive();
      expect(second!.messageId).toBe(first!.messageId);
      expect(second!.receiptHandle).not.toBe(first!.receiptHandle);
      expect(second!.attributes.ApproximateReceiveCount).toBe('2');
      expect(queue.delete(first!.receiptHandle)).toBe(false);
      expect(queue.changeVisibility(first!.receiptHandle, 0)).toBe(false);
      expect(queue.delete(second!.receiptHandle)).toBe(true);
      expect(queue.delete(second!.receiptHandle)).toBe(false);
      expect(queue.size()).toBe(0);
    });

    it.each([
      {
        label: 'extends',
        timeoutMs: 60_000,
        visibleAt: [
          { at: 30_000, n: 0 },
          { at: 60_000, n: 1 },
        ],
      },
      {
        label: 'shortens',
        timeoutMs: 5_000,
        visibleAt: [
          { at: 4_999, n: 0 },
          { at: 5_000, n: 1 },
        ],
      },
      { label: 'releases at once', timeoutMs: 0, visibleAt: [{ at: 0, n: 1 }] },
    ])('changeVisibility $label', ({ timeoutMs, visibleAt }) => {
      const { queue, send, clock } = setup();
      send('g');
      const start = clock.t;
      const [r] = queue.receive();
      expect(queue.changeVisibility(r!.receiptHandle, timeoutMs)).toBe(true);
      for (const { at, n } of visibleAt) {
        clock.t = start + at;
        expect(queue.stats().visible).toBe(n);
      }
    });

    it('with a zero visibility timeout the handle is expired on arrival, as on a FIFO queue', () => {
      const { queue, send } = setup({ visibilityTimeoutMs: 0 });
      send('g');
      const [r] = queue.receive();
      expect(queue.delete(r!.receiptHandle)).toBe(false);
      expect(bodies(queue.receive())).toEqual(['g-1']);
    });

    it('a record carries its first receive time as ApproximateFirstReceiveTimestamp, the same on every later receive', () => {
      const { queue, send, advance, clock } = setup();
      send('g');
      advance(250);
      const firstAt = clock.t;
      const [first] = queue.receive();
      expect(first!.attributes.ApproximateFirstReceiveTimestamp).toBe(String(firstAt));
      advance(30_000);
      const [second] = queue.receive();
      expect(second!.attributes).toMatchObject({
        ApproximateReceiveCount: '2',
        ApproximateFirstReceiveTimestamp: String(firstAt),
      });
    });

    it('a visibility change that would end past 12 hours from the first receive is refused, as SQS refuses it', () => {
      const { queue, send, advance } = setup();
      send('g');
      queue.receive();
      advance(2 * 3_600_000);
      const [r] = queue.receive();
      expect(() => queue.changeVisibility(r!.receiptHandle, 10 * 3_600_000 + 1_000)).toThrow(QueueRefusedError);
      expect(() => queue.changeVisibility(r!.receiptHandle, 10 * 3_600_000 + 1_000)).toThrow(
        /Total VisibilityTimeout for the message is beyond the limit \[43200 seconds\]/,
      );
      expect(queue.changeVisibility(r!.receiptHandle, 10 * 3_600_000)).toBe(true);
    });

    it('a redrive starts the message over: no first receive until it is received again', () => {
      const { queue, send, advance, clock } = setup({ maxReceiveCount: 1 });
      send('g');
      queue.receive();
      advance(30_000);
      expect(queue.receive()).toEqual([]);
      expect(queue.redrive()).toBe(1);
      advance(1_000);
      const [r] = queue.receive();
      expect(r!.attributes).toMatchObject({
        ApproximateReceiveCount: '1',
        ApproximateFirstReceiveTimestamp: String(clock.t),
      });
    });

    it('rejects an out-of-range visibility timeout and an unknown handle', () => {
      const { queue, send } = setup();
      send('g');
      const [r] = queue.receive();
      expect(() => queue.changeVisibility(r!.receiptHandle, -1)).toThrow(QueueRefusedError);
      expect(() => queue.changeVisibility(r!.receiptHandle, 12 * 3600_000 + 1)).toThrow(QueueRefusedError);
      expect(queue.changeVisibility('nope', 0)).toBe(false);
      expect(queue.delete('nope')).toBe(false);
    });
  });

  describe('EmbeddedFifoQueue: dead letters', () => {
    it('receive walks its own copy of each group: groups handed back as copies still dead-letter the first and deliver the rest', () => {
      const original = MessageGroups.prototype.oldestFirst;
      const copies = vi.spyOn(MessageGroups.prototype, 'oldestFirst').mockImplementation(function (
        this: MessageGroups,
      ) {
        return original.call(this).map((group) => [...group]);
      });
      try {
        const { queue, send, advance } = setup({ maxReceiveCount: 2 });
        send('g');
        send('g');
        send('g');
        expect(bodies(queue.receive())).toEqual(['g-1']);
        advance(30_000);
        expect(bodies(queue.receive())).toEqual(['g-1']);
        advance(30_000);
        expect(bodies(queue.receive(10))).toEqual(['g-2', 'g-3']);
        expect(queue.deadLetters.map((d) => d.record.body)).toEqual(['g-1']);
        expect(copies).toHaveBeenCalled();
      } finally {
        copies.mockRestore();
      }
    });

    it.each([1, 2, 5])('moves a message on the receive after its %i-th, with a reason', (maxReceiveCount) => {
      const { queue, send, advance } = setup({ maxReceiveCount, visibilityTimeoutMs: 1000 });
      const { messageId } = send('g', 'poison');
      send('g', 'next');
      for (let i = 1; i <= maxReceiveCount; i++) {
        const got = queue.receive(1);
        expect(bodies(got)).toEqual(['poison']);
        expect(got[0]!.attributes.ApproximateReceiveCount).toBe(String(i));
        advance(1000);
      }
      // The receive that would exceed the limit moves it and goes on with the group.
      expect(bodies(queue.receive(1))).toEqual(['next']);
      expect(queue.deadLetters).toHaveLength(1);
      const [dead] = queue.deadLetters;
      expect(dead!.record.messageId).toBe(messageId);
      expect(dead!.record.attributes.ApproximateReceiveCount).toBe(String(maxReceiveCount));
      expect(dead!.reason).toMatch(/maxReceiveCount/);
      expect(queue.stats()).toMatchObject({ deadLetters: 1, inFlight: 1 });
      expect(queue.size()).toBe(1);
    });

    it('redrive puts dead letters back with the receive count reset', () => {
      const { queue, send, advance } = setup({ maxReceiveCount: 1, visibilityTimeoutMs: 1000 });
      const { messageId } = send('g', 'poison');
      queue.receive();
      advance(1000);
      expect(queue.receive()).toEqual([]);
      expect(queue.size()).toBe(0);
      // A redriven message is not a duplicate, even inside the window.
      expect(queue.redrive()).toBe(1);
      expect(queue.deadLetters).toEqual([]);
      expect(queue.redrive()).toBe(0);
      const [again] = queue.receive();
      expect(again).toMatchObject({ messageId, body: 'poison', attributes: { ApproximateReceiveCount: '1' } });
    });
  });
});
