/**
 * The reconciler as the scheduled function and the local timer assemble it, on dynalite and the
 * GitHub simulator: `composeReconciler` sweeps the ledger of its parts, on their clock, and sends
 * what it releases to their queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeReconciler, type ReconcilerParts } from '../../lib/compose/reconciler.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { type Harness, startHarness } from '../support/harness.js';
import { lostRun } from '../support/reconcile-kit.js';

const MINUTE = 60_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

/** The parts a process gives the reconciler: the harness's table, ledger and clients, a queue of its own. */
function parts(offsetMs: number) {
  const queue = new EmbeddedFifoQueue({ name: 'compose-reconciler.fifo', now: () => 0 });
  const metrics = new MemoryMetrics();
  const p: ReconcilerParts = {
    ledger: h.ledger,
    queue: embeddedRunQueue(queue),
    client: h.client,
    log: h.log,
    metrics,
    now: () => Date.now() + offsetMs,
  };
  const enqueued = (): RunMessage[] => queue.receive(10).map((r) => JSON.parse(r.body) as RunMessage);
  return { p, metrics, enqueued };
}

describe('composeReconciler: one sweep of the parts’ ledger, on their clock', () => {
  it('a claim within its lease on the parts’ clock is left alone', async () => {
    const run = lostRun(h, 'acme/compose-reconcile-early');
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'dead-worker', 60 * MINUTE);
    const { p, enqueued } = parts(0);
    expect(await composeReconciler(h.settings, p).sweep()).toMatchObject({ orphansReleased: 0, failed: false });
    expect(enqueued()).toEqual([]);
    expect(await h.ledger.attempts.get(msg.repository.id, run.id, 1)).toMatchObject({ owner: 'dead-worker' });
  });

  it('an orphaned claim past its lease is released and its message sent to the parts’ queue, counted in their metrics', async () => {
    const run = lostRun(h, 'acme/compose-reconcile');
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'dead-worker', MINUTE);
    const { p, metrics, enqueued } = parts(20 * MINUTE);
    expect(await composeReconciler(h.settings, p).sweep()).toMatchObject({ orphansReleased: 1, failed: false });
    expect(enqueued().map((m) => m.runId)).toEqual([run.id]);
    expect(await h.ledger.attempts.get(msg.repository.id, run.id, 1)).toBeUndefined();
    expect(metrics.get('OrphanReleased')).toBe(1);
  });
});
