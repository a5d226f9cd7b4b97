/**
 * The restart sweep (lib/reconcile/restart.ts), as a start on a data dir runs it before its
 * worker polls: every claim an earlier process held is settled at once, whatever its lease. A
 * claim whose re-run went through is recorded `retried`; any other is released and decided again,
 * however many processes died deciding it: a death is a receive of its message, counted by the
 * queue (dead-letter-deaths.test.ts), never a verdict of the sweep. A waiting attempt keeps its turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import type { RepriseEvent } from '../../lib/events/types.js';
import { type RestartContext, sweepAfterRestart } from '../../lib/reconcile/restart.js';
import { type Harness, INSTALLATION_ID, startHarness } from '../support/harness.js';
import { lostRun } from '../support/reconcile-kit.js';

const LEASE_MS = 5 * 60_000;

describe('restart sweep: claims of an earlier process of the same data dir', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  function sweep(owner: string, queued: (m: RunMessage) => boolean = () => false) {
    const queue = new EmbeddedFifoQueue({ name: 'reprise-runs.fifo' });
    const metrics = new MemoryMetrics();
    const events: RepriseEvent[] = [];
    const ctx: RestartContext = {
      store: h.ledger.reconcile(Date.now),
      attempts: h.ledger.attempts,
      client: h.client,
      graphqlUrl: h.sim.graphqlUrl,
      queue: embeddedRunQueue(queue),
      events: { publish: async (e) => void events.push(e) },
      log: h.log,
      metrics,
      now: Date.now,
      owner,
      queued,
    };
    return { run: () => sweepAfterRestart(ctx), queue, metrics, events };
  }
  const sent = (queue: EmbeddedFifoQueue) => queue.bodies().map((b) => (JSON.parse(b) as RunMessage).runId);

  it('releases a claim of a dead process at once, long before its lease ends, and enqueues its message when the queue has none', async () => {
    const run = lostRun(h, 'acme/restart-released');
    const msg = h.message(run.id);
    expect((await h.ledger.attempts.claim(msg, 'local-g1-dead', LEASE_MS)).claimed).toBe(true);
    const s = sweep('local-g2-alive');
    expect(await s.run()).toMatchObject({ released: 1, recorded: 0 });
    expect(await h.ledger.attempts.get(msg.repository.id, run.id, 1)).toBeUndefined();
    expect(sent(s.queue)).toEqual([run.id]);
    expect(s.metrics.get('OrphanReleased')).toBe(1);
    // Decided again from that message: one re-run.
    const worker = h.worker();
    await worker({ Records: s.queue.receive(10) });
    expect(h.sim.rerunTally(run.id)).toMatchObject({ received: 1, accepted: 1 });
  });

  it('a released attempt claimed again by each next process that died is released every time, never abandoned by the sweep, and re-run once', async () => {
    const run = lostRun(h, 'acme/restart-twice');
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'local-g1-dead', LEASE_MS);
    expect(await sweep('local-g2-next').run()).toMatchObject({ released: 1 });
    // Each next process took it up and died deciding it too: a crash loop, not a verdict.
    for (const [died, next] of [
      ['local-g2-next', 'local-g3-next'],
      ['local-g3-next', 'local-g4-next'],
      ['local-g4-next', 'local-g5-last'],
    ] as const) {
      expect((await h.ledger.attempts.claim(msg, died, LEASE_MS)).claimed).toBe(true);
      const s = sweep(next, (m) => m.runId === run.id);
      expect(await s.run()).toMatchObject({ released: 1 });
      expect(await h.ledger.attempts.get(msg.repository.id, run.id, 1)).toBeUndefined();
      expect(s.metrics.get('OrphanAbandoned')).toBe(0);
      expect(s.events).toEqual([]);
    }
    // Decided by the process that lives: one re-run.
    const last = sweep('local-g5-last');
    expect(await last.run()).toMatchObject({ released: 0 });
    await embeddedRunQueue(last.queue).send(msg, 'g', 'restart-twice-last');
    await h.worker()({ Records: last.queue.receive(10) });
    expect(h.sim.rerunTally(run.id)).toMatchObject({ received: 1, accepted: 1 });
  });

  it('a claim whose re-run call went through before the process died is recorded retried, never re-run again', async () => {
    const run = lostRun(h, 'acme/restart-rerun');
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'local-g1-dead', LEASE_MS);
    const token = h.sim.issueToken(INSTALLATION_ID);
    const res = await fetch(`${h.sim.url}/repos/acme/restart-rerun/actions/runs/${run.id}/rerun-failed-jobs`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, accept: 'application/vnd.github+json' },
    });
    expect(res.status).toBe(201);
    const s = sweep('local-g2-alive');
    expect(await s.run()).toMatchObject({ recorded: 1, released: 0 });
    expect(await h.ledger.attempts.get(msg.repository.id, run.id, 1)).toMatchObject({
      state: 'decided',
      decision: 'retried',
    });
    expect(sent(s.queue)).toEqual([]);
    expect(h.sim.rerunTally(run.id).received).toBe(1);
  });

  it('a waiting attempt keeps its turn; its message is enqueued only when the queue lost it', async () => {
    const run = lostRun(h, 'acme/restart-waiting');
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'local-g1-dead', LEASE_MS);
    const slotAt = Date.now() + 60_000;
    expect(await h.ledger.attempts.wait(msg, 'local-g1-dead', slotAt, Date.now(), LEASE_MS)).toBe(true);
    const onDisk = sweep('local-g2-alive', (m) => m.runId === run.id);
    expect(await onDisk.run()).toMatchObject({ kept: 1, released: 0 });
    expect(sent(onDisk.queue)).toEqual([]);
    const lost = sweep('local-g2-alive');
    expect(await lost.run()).toMatchObject({ kept: 1 });
    expect(sent(lost.queue)).toEqual([run.id]);
    expect(await h.ledger.attempts.get(msg.repository.id, run.id, 1)).toMatchObject({ state: 'waiting', slotAt });
  });

  it("leaves this process's own claims alone, and a claim already in the queue is released without a second message", async () => {
    const mine = lostRun(h, 'acme/restart-mine');
    const theirs = lostRun(h, 'acme/restart-queued');
    await h.ledger.attempts.claim(h.message(mine.id), 'local-g2-alive', LEASE_MS);
    await h.ledger.attempts.claim(h.message(theirs.id), 'local-g1-dead', LEASE_MS);
    const s = sweep('local-g2-alive', (m) => m.runId === theirs.id);
    expect(await s.run()).toMatchObject({ released: 1 });
    expect(await h.ledger.attempts.get(h.message(mine.id).repository.id, mine.id, 1)).toMatchObject({
      state: 'claimed',
      owner: 'local-g2-alive',
    });
    // (The ledger is shared with the cases above: their waiting attempt is still there.)
    expect(sent(s.queue)).not.toContain(theirs.id);
    expect(sent(s.queue)).not.toContain(mine.id);
  });

  it('while GitHub cannot be read, a claim stays for the reconciler, and after three faults the rest is not tried: a start is never held up', async () => {
    const runs = Array.from({ length: 5 }, (_, i) => lostRun(h, `acme/restart-down-${i}`));
    for (const run of runs) await h.ledger.attempts.claim(h.message(run.id), 'local-g1-dead', LEASE_MS);
    h.sim.injectFault({ method: 'GET', path: /\/repos\/acme\/restart-down-\d\/actions\/runs\/\d+$/, status: 500 });
    const reads = () => h.sim.count('GET', /\/repos\/acme\/restart-down-\d\/actions\/runs\/\d+$/);
    const before = reads();
    try {
      const s = sweep('local-g2-alive');
      const summary = await s.run();
      expect(summary.failed).toBeGreaterThanOrEqual(5);
      expect(h.log.named('claim of an earlier process not settled at restart; left to the reconciler')).toHaveLength(3);
      // Three claims tried (each read retried by the client), the other two not read at all.
      const tried = new Set(
        h.sim.requests
          .filter((r) => r.method === 'GET' && /restart-down-\d\/actions\/runs\/\d+$/.test(r.path))
          .map((r) => r.path),
      );
      expect(tried.size).toBe(3);
      expect(reads()).toBeGreaterThan(before);
      for (const run of runs) {
        expect(await h.ledger.attempts.get(h.message(run.id).repository.id, run.id, 1)).toMatchObject({
          state: 'claimed',
          owner: 'local-g1-dead',
        });
      }
      for (const run of runs) expect(sent(s.queue)).not.toContain(run.id);
    } finally {
      h.sim.clearFaults();
    }
  });
});
