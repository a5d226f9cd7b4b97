/**
 * The embedded queue's journal on dynalite: one write at a time per message, always of its
 * latest snapshot, a removal once nothing is left to keep, and a failed write reported to every
 * waiter and tried again by the next flush.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedDynamo, startDynamo } from '../../../lib/local/dynamo.js';
import { DynamoQueueJournal, QUEUE_TABLE_NAME } from '../../../lib/queue/embedded/journal.js';
import type { MessageSnapshot } from '../../../lib/queue/embedded/snapshot.js';

let dynamo: EmbeddedDynamo;
let n = 0;

beforeAll(async () => {
  dynamo = await startDynamo({ table: 'reprise' });
});
afterAll(async () => {
  await dynamo.close();
});

const snap = (messageId: string, over: Partial<MessageSnapshot> = {}): MessageSnapshot => ({
  messageId,
  body: `body of ${messageId}`,
  groupId: 'g',
  deduplicationId: `d-${messageId}`,
  order: 1,
  visibleAt: 1_000,
  receiveCount: 0,
  status: 'queued',
  dedupUntil: 301_000,
  ...over,
});

/** A journal of a queue of its own, on the default table. */
const fresh = (onError?: (err: unknown) => void) =>
  DynamoQueueJournal.open(dynamo.client, `q${++n}.fifo`, { ...(onError && { onError }) });

describe('DynamoQueueJournal', () => {
  it('open creates its table when missing and again finds it there', async () => {
    const first = await fresh();
    const again = await fresh();
    expect(await first.load()).toEqual([]);
    expect(await again.load()).toEqual([]);
    expect(QUEUE_TABLE_NAME).toBe('reprise-local-queue');
  });

  it('a flush resolves once the latest snapshot of each message is on disk', async () => {
    const journal = await fresh();
    journal.changed('a', () => snap('a'));
    journal.changed('b', () => snap('b', { order: 2 }));
    await journal.flush(['a', 'b']);
    const onDisk = await journal.load();
    expect(onDisk.sort((x, y) => x.order - y.order)).toEqual([snap('a'), snap('b', { order: 2 })]);
  });

  it('changes that come while a write is under way are written together, as the latest snapshot', async () => {
    const journal = await fresh();
    let current = snap('a');
    const read = () => current;
    journal.changed('a', read);
    current = snap('a', { status: 'received', receiveCount: 1, firstReceivedAt: 2_000 });
    journal.changed('a', read);
    current = snap('a', { status: 'deferred', receiveCount: 1, firstReceivedAt: 2_000, visibleAt: 9_000 });
    journal.changed('a', read);
    await journal.flush(['a']);
    expect(await journal.load()).toEqual([current]);
  });

  it('a message with nothing left to keep is removed from disk', async () => {
    const journal = await fresh();
    let current: MessageSnapshot | undefined = snap('a');
    journal.changed('a', () => current);
    await journal.flush(['a']);
    current = undefined;
    journal.changed('a', () => current);
    await journal.flush(['a']);
    expect(await journal.load()).toEqual([]);
  });

  it('a flush of messages with nothing pending resolves at once', async () => {
    const journal = await fresh();
    await expect(journal.flush(['never-changed'])).resolves.toBeUndefined();
  });

  it('queues sharing the table read only their own messages', async () => {
    const one = await fresh();
    const two = await fresh();
    one.changed('a', () => snap('a'));
    two.changed('b', () => snap('b'));
    await Promise.all([one.flush(['a']), two.flush(['b'])]);
    expect((await one.load()).map((s) => s.messageId)).toEqual(['a']);
    expect((await two.load()).map((s) => s.messageId)).toEqual(['b']);
  });

  it('a write that fails is reported and rejects its flush; the next flush writes it once the store is back', async () => {
    const errors: unknown[] = [];
    const journal = await fresh((err) => errors.push(err));
    await dynamo.stop();
    try {
      journal.changed('a', () => snap('a'));
      await expect(journal.flush(['a'])).rejects.toBeDefined();
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await dynamo.restart();
    }
    await journal.flush(['a']);
    expect(await journal.load()).toEqual([snap('a')]);
  });

  it('settle waits for what is pending and swallows a failure, for a clean shutdown', async () => {
    const journal = await fresh();
    await dynamo.stop();
    journal.changed('a', () => snap('a'));
    await expect(journal.settle()).resolves.toBeUndefined();
    await dynamo.restart();
    journal.changed('b', () => snap('b'));
    await journal.settle();
    expect((await journal.load()).map((s) => s.messageId).sort()).toEqual(['a', 'b']);
  });
});
