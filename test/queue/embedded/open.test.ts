/**
 * The embedded queue with `--data-dir`: what it acknowledged is on disk (dynalite's LevelDB) and a
 * start on the same data dir rebuilds it with the same SQS FIFO semantics: receive counts, a
 * consumer's messages released at once, deferrals kept, the dead-letter queue, the deduplication
 * window. Each restart here drops the queue in memory without a clean shutdown, and reopens the
 * data dir from disk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type EmbeddedDynamo, startDynamo } from '../../../lib/local/dynamo.js';
import { openRunQueue, type OpenedQueue } from '../../../lib/queue/embedded/open.js';
import { QueuePoller } from '../../../lib/queue/embedded/poller.js';
import type { RunMessage } from '../../../lib/model.js';

const TABLE = 'reprise';
const dirs: string[] = [];
const open: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir() {
  const clock = { t: 1_700_000_000_000 };
  const dir = mkdtempSync(join(tmpdir(), 'reprise-queue-'));
  dirs.push(dir);
  let close: (() => Promise<void>) | undefined;
  const start = async (): Promise<OpenedQueue & { dynamo: EmbeddedDynamo }> => {
    // The previous process is gone and its queue in memory with it. Writes it had begun are let
    // land first (dynalite fails on a closed store otherwise); each case waited for the ones it
    // relies on, as the runtime does before it acknowledges anything.
    if (close) await close();
    const dynamo = await startDynamo({ table: TABLE, path: dir });
    const opened = await openRunQueue({
      name: 'reprise-runs.fifo',
      visibilityTimeoutMs: 30_000,
      maxReceiveCount: 3,
      now: () => clock.t,
      durable: dynamo,
      onError: () => undefined,
    });
    close = async () => {
      await opened.settle();
      await dynamo.close();
      close = undefined;
    };
    open.push(() => close?.() ?? Promise.resolve());
    return { ...opened, dynamo };
  };
  return { clock, start };
}

const send = async (q: OpenedQueue, body: string, groupId = 'g', dedup = `d-${body}`) => {
  const { messageId } = q.fifo.send({ body, groupId, deduplicationId: dedup });
  await q.fifo.persisted([messageId]);
  return messageId;
};

describe('durable local queue (--data-dir)', () => {
  it('a message acknowledged before the process died is delivered after the restart, in FIFO order, its deduplication id remembered', async () => {
    const d = dataDir();
    let q = await d.start();
    await send(q, 'a1', 'a');
    await send(q, 'b1', 'b');
    await send(q, 'a2', 'a');
    q = await d.start();
    expect(q.restored).toMatchObject({ messages: 3, released: 0, deferred: 0, deadLetters: 0 });
    expect(q.fifo.send({ body: 'again', groupId: 'a', deduplicationId: 'd-a1' }).duplicate).toBe(true);
    expect(q.fifo.receive(10).map((r) => r.body)).toEqual(['a1', 'a2', 'b1']);
    // A send after the restart joins the tail, behind what was there.
    await send(q, 'c1', 'c');
    expect(q.fifo.stats()).toMatchObject({ visible: 1, inFlight: 3 });
  });

  it('a message a consumer held when the process died is visible at once after the restart, its receive counted', async () => {
    const d = dataDir();
    let q = await d.start();
    await send(q, 'held', 'g');
    await send(q, 'next', 'g');
    const [record] = q.fifo.receive(1);
    expect(record!.attributes.ApproximateReceiveCount).toBe('1');
    await q.fifo.persisted([record!.messageId]);
    q = await d.start();
    expect(q.restored).toMatchObject({ messages: 2, released: 1 });
    // No visibility timeout to wait out: the consumer is dead. Its group's order still holds.
    const again = q.fifo.receive(1);
    expect(again.map((r) => [r.body, r.attributes.ApproximateReceiveCount])).toEqual([['held', '2']]);
    // The dead consumer's handle is refused, as a stale one is.
    expect(q.fifo.delete(record!.receiptHandle)).toBe(false);
  });

  it('the first receive time is kept in the journal: after a restart the record still carries it, and the 12-hour ceiling counts from it', async () => {
    const d = dataDir();
    let q = await d.start();
    await send(q, 'held', 'g');
    const firstAt = d.clock.t;
    const [record] = q.fifo.receive(1);
    expect(record!.attributes.ApproximateFirstReceiveTimestamp).toBe(String(firstAt));
    await q.fifo.persisted([record!.messageId]);
    d.clock.t += 3_600_000;
    q = await d.start();
    const [again] = q.fifo.receive(1);
    expect(again!.attributes).toMatchObject({
      ApproximateReceiveCount: '2',
      ApproximateFirstReceiveTimestamp: String(firstAt),
    });
    // An hour of the 12 is spent: 11 hours fit, a second more does not.
    expect(() => q.fifo.changeVisibility(again!.receiptHandle, 11 * 3_600_000 + 1_000)).toThrow(
      /beyond the limit \[43200 seconds\]/,
    );
    expect(q.fifo.changeVisibility(again!.receiptHandle, 11 * 3_600_000)).toBe(true);
  });

  it('a message released by a restart stays on disk: a second restart before any receive still has it', async () => {
    const d = dataDir();
    let q = await d.start();
    const id = await send(q, 'held', 'g');
    q.fifo.receive(1);
    await q.fifo.persisted([id]);
    q = await d.start();
    expect(q.restored).toMatchObject({ messages: 1, released: 1 });
    await q.fifo.persisted([id]);
    q = await d.start();
    // Released, it is written back as queued (no consumer holds it), its receive still counted.
    expect(q.restored).toMatchObject({ messages: 1, released: 0 });
    expect(q.fifo.receive(1).map((r) => [r.body, r.attributes.ApproximateReceiveCount])).toEqual([['held', '2']]);
  });

  it('a deferral outlives the restart: the message stays hidden and its group blocked until it ends', async () => {
    const d = dataDir();
    let q = await d.start();
    await send(q, 'waits', 'g');
    await send(q, 'behind', 'g');
    await send(q, 'other', 'h');
    const [record] = q.fifo.receive(1);
    q.fifo.changeVisibility(record!.receiptHandle, 60_000);
    await q.fifo.persisted([record!.messageId]);
    q = await d.start();
    expect(q.restored).toMatchObject({ messages: 3, released: 0, deferred: 1 });
    const [other] = q.fifo.receive(10);
    expect(other!.body).toBe('other');
    q.fifo.delete(other!.receiptHandle);
    d.clock.t += 59_999;
    expect(q.fifo.receive(10)).toEqual([]);
    d.clock.t += 1;
    expect(q.fifo.receive(10).map((r) => [r.body, r.attributes.ApproximateReceiveCount])).toEqual([
      ['waits', '2'],
      ['behind', '1'],
    ]);
  });

  it('receive counts add up across restarts to the dead-letter queue, which survives a restart and redrives', async () => {
    const d = dataDir();
    let q = await d.start();
    const id = await send(q, 'poison', 'g');
    for (let i = 1; i <= 3; i++) {
      const got = q.fifo.receive(1);
      expect(got.map((r) => r.attributes.ApproximateReceiveCount)).toEqual([String(i)]);
      await q.fifo.persisted([id]);
      q = await d.start();
    }
    expect(q.fifo.receive(1)).toEqual([]);
    expect(q.fifo.deadLetters).toHaveLength(1);
    await q.fifo.persisted([id]);
    q = await d.start();
    expect(q.restored).toMatchObject({ messages: 0, deadLetters: 1 });
    expect(q.fifo.deadLetters[0]!.reason).toMatch(/maxReceiveCount 3 exceeded/);
    expect(q.fifo.redrive()).toBe(1);
    await q.fifo.persisted([id]);
    q = await d.start();
    expect(q.fifo.receive(1).map((r) => [r.messageId, r.attributes.ApproximateReceiveCount])).toEqual([[id, '1']]);
  });

  it('a deleted message never comes back; its deduplication id is remembered for the window, then forgotten', async () => {
    const d = dataDir();
    let q = await d.start();
    const id = await send(q, 'done', 'g');
    const [record] = q.fifo.receive(1);
    expect(q.fifo.delete(record!.receiptHandle)).toBe(true);
    await q.fifo.persisted([id]);
    q = await d.start();
    expect(q.fifo.size()).toBe(0);
    expect(q.fifo.send({ body: 'done', groupId: 'g', deduplicationId: 'd-done' }).duplicate).toBe(true);
    d.clock.t += 5 * 60_000;
    q = await d.start();
    expect(q.fifo.snapshots()).toEqual([]);
    expect(q.fifo.send({ body: 'done', groupId: 'g', deduplicationId: 'd-done' }).duplicate).toBe(false);
  });

  it('the run queue answers a send only once the message is on disk, and fails it while the disk cannot take it', async () => {
    const d = dataDir();
    let q = await d.start();
    const runs = q.queue;
    const message = { v: 1, runId: 7 } as unknown as RunMessage;
    await q.dynamo.stop();
    await expect(runs.send(message, 'g', 'delivery-1')).rejects.toThrow();
    await q.dynamo.restart();
    // GitHub's redelivery of the failed delivery: the same id, accepted once it is written.
    await runs.send(message, 'g', 'delivery-1');
    q = await d.start();
    expect(q.fifo.receive(10).map((r) => JSON.parse(r.body) as unknown)).toEqual([message]);
  });

  it('the poller hands a batch to the worker only once its receive is on disk, and gives it back shortly when it cannot be', async () => {
    const d = dataDir();
    const q = await d.start();
    await send(q, 'm', 'g');
    const handled: string[] = [];
    const poller = new QueuePoller(q.queue, async (e) => void handled.push(...e.Records.map((r) => r.body)));
    await q.dynamo.stop();
    expect(await poller.pollOnce()).toBe(0);
    expect(handled).toEqual([]);
    await q.dynamo.restart();
    // Not the 30 s visibility timeout: the batch was given back for a second.
    expect(q.fifo.receive(1)).toEqual([]);
    d.clock.t += 1000;
    expect(await poller.pollOnce()).toBe(1);
    expect(handled).toEqual(['m']);
  });
});
