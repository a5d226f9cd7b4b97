/**
 * The worker defers through the queue's visibility change (`DeferringQueue.changeVisibility`),
 * here the embedded queue's as the local runtime wires it: a run waiting for its turn is hidden in
 * the queue for the seconds the worker planned, and a change the queue refuses is logged and
 * counted, never silent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedQueue } from '../../lib/queue/embedded/queue.js';
import { messageGroupId } from '../../lib/webhook/run-message.js';
import { lostJob } from '../support/evidence.js';
import { type Harness, startHarness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => h.log.clear());

/** Two lost runs in one installation, sent to and received from an embedded queue on a hand-moved clock. */
async function twoLostRunsReceived(repo: string) {
  const clock = { t: Date.now() };
  const fifo = new EmbeddedFifoQueue({ name: 'reprise-runs.fifo', visibilityTimeoutMs: 360_000, now: () => clock.t });
  const queue = embeddedQueue(fifo);
  const runs = [1, 2].map((n) =>
    h.sim.addRun({ repo, headBranch: `lost-${n}`, jobs: [lostJob('test', 'runner-i-0abc1234def567890')] }),
  );
  for (const run of runs) {
    const message = h.message(run.id);
    await queue.send(message, `${messageGroupId(message)}-${run.id}`, message.deliveryId);
  }
  const records = await queue.receive(10);
  expect(records).toHaveLength(2);
  // One re-run a minute: the second run waits about a minute for its turn.
  const worker = h.worker({
    pacing: h.ledger.pacing({ perMinute: 1, perHour: 0, spacingMs: 350 }),
    defer: (record, seconds) => queue.changeVisibility(record, seconds),
  });
  return { clock, fifo, records, worker };
}

describe("the worker's deferral on the embedded queue", () => {
  it('a run waiting for its turn is hidden in the queue for the seconds the worker asked', async () => {
    const { clock, fifo, records, worker } = await twoLostRunsReceived('acme/defer-embedded');
    const res = await worker({ Records: records });
    expect(res.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([records[1]!.messageId]);
    const waits = h.log.named('run waits');
    expect(waits).toHaveLength(1);
    expect(fifo.nextVisibleAt()).toBe(clock.t + Number(waits[0]!.wait_seconds) * 1000);
    expect(h.log.named('visibility change refused')).toEqual([]);
  });

  it('a change the queue refuses (the handle went stale) is logged with its reason and counted', async () => {
    const { clock, fifo, records, worker } = await twoLostRunsReceived('acme/defer-refused');
    // The visibility timeout passes and the messages are received again: the worker's handles are stale.
    clock.t += 360_000;
    expect(fifo.receive(10)).toHaveLength(2);
    const refusedBefore = h.metrics.get('DeferRefused');
    await worker({ Records: records });
    // Each run that waited (one, or both when an earlier case took this minute's turn) was refused.
    const refused = h.log.named('visibility change refused');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const line of refused) expect(line.error).toMatch(/receipt handle .* is stale or expired/);
    expect(refused.map((l) => l.message_id)).toContain(records[1]!.messageId);
    expect(h.metrics.get('DeferRefused')).toBe(refusedBefore + refused.length);
  });
});
