import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredAttempt } from '../../lib/ledger/attributes.js';
import { settleOrphan } from '../../lib/reconcile/attempts.js';
import type { RunOutcome } from '../../lib/worker/result.js';
import type { RunMessage } from '../../lib/model.js';
import { INSTALLATION_ID, startHarness, type Harness } from '../support/harness.js';
import { kit, lostRun } from '../support/reconcile-kit.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const reruns = (h: Harness, runId: number) => h.sim.rerunTally(runId).received;

describe('reconciler: orphaned claims', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => h.close());

  it('a claim whose worker died before the re-run call is released after its lease and decided again: one re-run', async () => {
    const run = lostRun(h);
    const msg = h.message(run.id);
    // A lease longer than the test may run: the early sweep cannot find it expired on a slow machine.
    await h.ledger.attempts.claim(msg, 'dead-worker', MINUTE);

    const early = await kit(h).reconciler.sweep();
    expect(early).toMatchObject({ matched: 0, orphansReleased: 0, failed: false });

    const k = kit(h, { offsetMs: 2 * MINUTE });
    expect(await k.reconciler.sweep()).toMatchObject({ orphansReleased: 1, failed: false });
    expect(k.enqueued()).toEqual([msg]);
    expect(await h.ledger.attempts.get(msg.repository.id, run.id, 1)).toBeUndefined();
    expect(k.metrics.get('OrphanReleased')).toBe(1);

    await k.drain();
    expect((await h.ledger.attempts.get(msg.repository.id, run.id, 1))?.decision).toBe('retried');
    expect(reruns(h, run.id)).toBe(1);

    // Idempotent: later sweeps find nothing to do.
    expect(await k.reconciler.sweep()).toMatchObject({ orphansReleased: 0, orphansRecorded: 0 });
    expect(k.enqueued()).toHaveLength(1);
  });

  it('a claim whose worker died after the re-run call went through is recorded as retried, never re-run again', async () => {
    const run = lostRun(h);
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'dead-worker', 1_000);
    await h.client(INSTALLATION_ID).rest.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs', {
      owner: 'acme',
      repo: 'reconcile',
      run_id: run.id,
    });

    const k = kit(h, { offsetMs: 2_000 });
    expect(await k.reconciler.sweep()).toMatchObject({ orphansRecorded: 1, orphansReleased: 0 });
    const rec = await h.ledger.attempts.get(msg.repository.id, run.id, 1);
    expect(rec).toMatchObject({ state: 'decided', decision: 'retried', owner: 'dead-worker' });
    expect(rec?.details).toMatchObject({ reconciled: true, runAttemptSeen: 2 });
    expect(k.enqueued()).toEqual([]);
    expect(reruns(h, run.id)).toBe(1);
    expect(k.metrics.get('OrphanRecorded')).toBe(1);
    // Its worker died before publishing: the one decision event comes from the reconciler.
    expect(k.events).toMatchObject([
      { kind: 'decision', run_id: run.id, run_attempt: 1, decision: 'retried', rerun: true, next_attempt: 2 },
    ]);
  });

  it('a claim still within its lease is left alone', async () => {
    const run = lostRun(h);
    await h.ledger.attempts.claim(h.message(run.id), 'slow-worker', 60_000);
    const k = kit(h, { offsetMs: 30_000 });
    expect(await k.reconciler.sweep()).toMatchObject({ matched: 0, orphansReleased: 0 });
    expect((await h.ledger.attempts.get(h.message(run.id).repository.id, run.id, 1))?.state).toBe('claimed');
  });

  it('acts only on the same claim: a record that changed owner since the scan is not touched', async () => {
    const run = lostRun(h);
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'worker-b', 1_000);
    const current = (await h.ledger.attempts.get(msg.repository.id, run.id, 1)) as StoredAttempt;
    const scannedEarlier: StoredAttempt = { ...current, owner: 'worker-a' };
    const k = kit(h, { offsetMs: 2_000 });
    const store = h.ledger.reconcile(() => Date.now() + 2_000);
    const ctx = {
      store,
      attempts: h.ledger.attempts,
      client: h.client,
      graphqlUrl: h.sim.graphqlUrl,
      queue: { send: async () => undefined },
      log: h.log,
      metrics: k.metrics,
      now: () => Date.now() + 2_000,
      followUpMaxAgeMs: DAY,
    };
    expect(await settleOrphan(scannedEarlier, ctx)).toBe('skipped');
    expect(await store.releaseOrphan(scannedEarlier)).toBe(false);
    expect(await store.recordOrphan(scannedEarlier, 'retried', 'x', {})).toBe(false);
    expect((await h.ledger.attempts.get(msg.repository.id, run.id, 1))?.owner).toBe('worker-b');
  });

  it('releases an attempt at most once, ever: a second orphan of it is recorded abandoned with its reason, once, and never swept again', async () => {
    const run = lostRun(h);
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'dead-1', 1_000);
    const k = kit(h, { offsetMs: 5_000 });
    expect(await k.reconciler.sweep()).toMatchObject({ orphansReleased: 1 });
    // The re-enqueued message's worker dies too, right after its claim.
    await h.ledger.attempts.claim(msg, 'dead-2', 1_000);
    expect(await k.reconciler.sweep()).toMatchObject({ orphansReleased: 0, orphansAbandoned: 1 });
    expect(await k.reconciler.sweep()).toMatchObject({ orphansReleased: 0, orphansAbandoned: 0 });
    expect(k.metrics.get('OrphanAbandoned')).toBe(1);
    expect(k.metrics.get('Decision{decision=abandoned}')).toBe(1);
    expect(
      h.log.named('orphaned claim recorded abandoned: this attempt was released before and its worker stopped again'),
    ).toHaveLength(1);
    const rec = await h.ledger.attempts.get(msg.repository.id, run.id, 1);
    expect(rec).toMatchObject({ state: 'decided', decision: 'abandoned' });
    expect(rec?.reason).toMatch(
      /^abandoned: its worker stopped while deciding it after it had been released once; decide it by hand \(reprise replay\)$/,
    );
    expect(k.enqueued()).toHaveLength(1);
    expect(reruns(h, run.id)).toBe(0);
  });

  it('an attempt whose re-run call keeps failing is released a few times, then recorded abandoned with the call’s error', async () => {
    const run = lostRun(h);
    const msg = h.message(run.id);
    const k = kit(h, { offsetMs: 5_000 });
    const released: number[] = [];
    for (let i = 0; i < 5; i++) {
      await h.ledger.attempts.claim(msg, `failing-${i}`, 1_000);
      await h.ledger.attempts.noteCallFailed(msg, `failing-${i}`, 'GitHub answered 502');
      released.push((await k.reconciler.sweep()).orphansReleased);
    }
    expect(released).toEqual([1, 1, 1, 0, 0]);
    const rec = await h.ledger.attempts.get(msg.repository.id, run.id, 1);
    expect(rec).toMatchObject({ state: 'decided', decision: 'abandoned' });
    expect(rec?.reason).toMatch(/its re-run call failed again \(GitHub answered 502\) and GitHub shows no new attempt/);
    expect(k.enqueued()).toHaveLength(3);
  });

  it('if the run cannot be read, does nothing; the next sweep carries on', async () => {
    const run = lostRun(h);
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'dead', 1_000);
    h.sim.injectFault({ method: 'GET', path: new RegExp(`/actions/runs/${run.id}$`), status: 502, times: 20 });
    const k = kit(h, { offsetMs: 2_000 });
    const failed = await k.reconciler.sweep();
    expect(failed).toMatchObject({ orphansReleased: 0, failed: true });
    expect(k.metrics.get('SweepFailed')).toBe(1);
    expect((await h.ledger.attempts.get(msg.repository.id, run.id, 1))?.state).toBe('claimed');
    expect(k.enqueued()).toEqual([]);

    h.sim.clearFaults();
    expect(await k.reconciler.sweep()).toMatchObject({ orphansReleased: 1, failed: false });
  });

  it('if the message cannot be enqueued, the claim is put back and the next sweep tries again', async () => {
    const run = lostRun(h);
    const msg = h.message(run.id);
    await h.ledger.attempts.claim(msg, 'dead', 1_000);
    let queueUp = false;
    const sent: string[] = [];
    const k = kit(h, {
      offsetMs: 2_000,
      send: async (m) => {
        if (!queueUp) throw new Error('queue unavailable');
        sent.push((m as RunMessage).deliveryId);
      },
    });
    expect(await k.reconciler.sweep()).toMatchObject({ orphansReleased: 0, failed: true });
    expect((await h.ledger.attempts.get(msg.repository.id, run.id, 1))?.owner).toBe('dead');
    queueUp = true;
    expect(await k.reconciler.sweep()).toMatchObject({ orphansReleased: 1, failed: false });
    expect(sent).toEqual([msg.deliveryId]);
  });

  it('is bounded: a page limit per sweep, resumed from a cursor stored in DynamoDB across cold starts', async () => {
    const runs = Array.from({ length: 12 }, () => lostRun(h));
    for (const run of runs) await h.ledger.attempts.claim(h.message(run.id), 'dead', 1_000);
    const limits = { ledgerPageSize: 4, ledgerPages: 2 };
    const perSweep: number[] = [];
    let released = 0;
    for (let sweep = 0; sweep < 20 && released < runs.length; sweep++) {
      // A new reconciler each time, as after a cold start: only the table remembers where it stopped.
      const c = await kit(h, { offsetMs: 2_000, limits }).reconciler.sweep();
      perSweep.push(c.matched);
      released += c.orphansReleased;
    }
    expect(released).toBe(12);
    expect(Math.max(...perSweep)).toBeLessThanOrEqual(8);
    expect(perSweep.length).toBeGreaterThan(1);
  });
});

describe('reconciler: lost completions', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => h.close());

  /** Re-runs a lost runner through the worker; the simulator completes the next attempt at once. */
  const retried = async (onRerun: 'success' | 'same', complete = true) => {
    const run = lostRun(h, 'acme/completions', onRerun);
    const message = h.message(run.id);
    if (!complete) h.sim.onNewAttempt = (r) => void (r.latest.status = 'in_progress');
    const out: RunOutcome[] = [];
    await h.worker({ onOutcome: (_m, o) => out.push(o) })(h.sqsEvent([message]));
    h.sim.onNewAttempt = null;
    expect(out.map((o) => o.decision)).toEqual(['retried']);
    return Object.assign(run, { message });
  };

  it('a re-run attempt that completed red without a delivery is enqueued after the grace period and decided', async () => {
    const run = await retried('same');
    expect(h.sim.run(run.id).runAttempt).toBe(2);

    expect(await kit(h, { offsetMs: 20 * MINUTE }).reconciler.sweep()).toMatchObject({ matched: 0 });

    const k = kit(h, { offsetMs: 31 * MINUTE });
    expect(await k.reconciler.sweep()).toMatchObject({ completionsEnqueued: 1, failed: false });
    expect(k.enqueued()).toMatchObject([{ runId: run.id, runAttempt: 2, conclusion: 'failure' }]);
    // The run's creation time travels with it, so the worker can decide from the latest jobs.
    expect(k.enqueued()[0]?.createdAt).toBe(h.sim.run(run.id).createdAt);
    expect(k.metrics.get('LostCompletion')).toBe(1);

    await k.drain({ defaults: { textOnlyMaxAttempts: 3 } });
    const second = await h.ledger.attempts.get(h.message(run.id).repository.id, run.id, 2);
    expect(second?.decision).toBe('retried');
    expect(h.sim.run(run.id).runAttempt).toBe(3);

    // Attempt 1 is followed up once; attempt 2, re-run in turn and silent too, is followed up next.
    expect(await k.reconciler.sweep()).toMatchObject({ completionsEnqueued: 1 });
    expect(await k.reconciler.sweep()).toMatchObject({ completionsEnqueued: 0 });
    expect(k.enqueued().map((m) => m.runAttempt)).toEqual([2, 3]);
  });

  it('a late delivery of the same attempt next to the recovered one makes one decision, not two', async () => {
    const run = await retried('same');
    const k = kit(h, { offsetMs: 31 * MINUTE });
    await k.reconciler.sweep();
    const late = h.message(run.id, 'late-delivery');
    expect(late.runAttempt).toBe(2);
    const decisions: string[] = [];
    await k.drain({ defaults: { textOnlyMaxAttempts: 3 }, onOutcome: (_m, o) => decisions.push(o.decision) });
    await h.worker({ onOutcome: (_m, o) => decisions.push(o.decision) })(h.sqsEvent([late]));
    expect(decisions.sort()).toEqual(['duplicate', 'retried']);
    expect(reruns(h, run.id)).toBe(2);
  });

  it('a re-run attempt that completed green is settled without enqueuing anything', async () => {
    const run = await retried('success');
    const k = kit(h, { offsetMs: 31 * MINUTE });
    expect(await k.reconciler.sweep()).toMatchObject({ completionsEnqueued: 0, followUpsSettled: 1 });
    expect(k.enqueued()).toEqual([]);
    const rec = (await h.ledger.attempts.get(run.message.repository.id, run.id, 1)) as unknown as Record<
      string,
      unknown
    >;
    expect(rec.followUp).toBe('completed');
    expect(await k.reconciler.sweep()).toMatchObject({ matched: 0 });
  });

  it('when the next attempt was delivered (a ledger record exists), the run is not even read', async () => {
    const run = await retried('same');
    // Attempt 2 was delivered and decided (at the text-only cap, so nothing further to follow).
    const out: RunOutcome[] = [];
    await h.worker({ onOutcome: (_m, o) => out.push(o) })(h.sqsEvent([h.message(run.id)]));
    expect(out.map((o) => o.decision)).toEqual(['attempt_cap']);
    h.sim.resetRequests();
    const k = kit(h, { offsetMs: 31 * MINUTE });
    expect(await k.reconciler.sweep()).toMatchObject({ completionsEnqueued: 0, followUpsSettled: 1 });
    expect(h.sim.count('GET', new RegExp(`/actions/runs/${run.id}$`))).toBe(0);
  });

  it('a next attempt still running is polled again later, and enqueued once it completes red', async () => {
    const run = await retried('same', false);
    const k = kit(h, { offsetMs: 31 * MINUTE });
    expect(await k.reconciler.sweep()).toMatchObject({ followUpsWaiting: 1, completionsEnqueued: 0 });
    h.sim.run(run.id).complete({ build: { conclusion: 'failure' } });
    expect(await k.reconciler.sweep()).toMatchObject({ followUpsWaiting: 0, completionsEnqueued: 1 });
  });
});
