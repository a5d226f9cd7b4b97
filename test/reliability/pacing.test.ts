import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeSettings } from '../../lib/config/env.js';
import { Ledger } from '../../lib/ledger/ledger.js';
import { DynamoPacing, LATE_ALLOWANCE_MS } from '../../lib/ledger/pacing.js';
import type { StoredAttempt } from '../../lib/ports.js';
import { replayGuard } from '../../lib/replay/replay-guard.js';
import type { RunOutcome } from '../../lib/worker/decide-run.js';
import { startHarness, TABLE, type Harness } from '../support/harness.js';
import { kit, lostRun } from './reconcile-kit.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('the shared pace of one installation (DynamoDB, single-item conditional writes)', () => {
  let h: Harness;
  const now = Date.parse('2026-12-02T10:00:00Z');
  const clock = () => now;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it('80 a minute: slots a little over 750 ms apart, the first one at once', async () => {
    const pace = new DynamoPacing(h.dynamo.client, TABLE, { perMinute: 80, perHour: 500 }, clock);
    expect(pace.spacingMs).toBe(Math.ceil((MINUTE + LATE_ALLOWANCE_MS) / 80));
    const slots = [await pace.reserve(1), await pace.reserve(1), await pace.reserve(1)];
    expect(slots).toEqual([now, now + pace.spacingMs, now + 2 * pace.spacingMs]);
    // Another installation keeps its own pace.
    expect(await pace.reserve(2)).toBe(now);
    // Any 81 slots span more than the minute and the allowance.
    expect(80 * pace.spacingMs).toBeGreaterThanOrEqual(MINUTE + LATE_ALLOWANCE_MS);
  });

  it('a reservation bounded by `latest` takes nothing when the next slot is later', async () => {
    const pace = new DynamoPacing(h.dynamo.client, TABLE, { perMinute: 60, perHour: 0 }, clock);
    expect(await pace.reserve(3)).toBe(now);
    expect(await pace.reserve(3, now + 10)).toBeUndefined();
    expect(await pace.reserve(3)).toBe(now + pace.spacingMs);
  });

  it('a slot free now is taken even when `latest` has passed: time moves between the caller and the read', async () => {
    let t = now;
    const pace = new DynamoPacing(h.dynamo.client, TABLE, { perMinute: 60, perHour: 0 }, () => t);
    const latest = t + 1;
    t += 50; // the table read took longer than the caller's allowance
    expect(await pace.reserve(6, latest)).toBe(t);
    expect(await pace.reserve(6, t + 1)).toBeUndefined();
  });

  it('the hourly limit: the slot after `perHour` slots waits an hour after the first of them', async () => {
    const pace = new DynamoPacing(h.dynamo.client, TABLE, { perMinute: 6000, perHour: 3 }, clock);
    const first = await pace.reserve(4);
    await pace.reserve(4);
    await pace.reserve(4);
    expect(await pace.reserve(4)).toBe(first! + HOUR + LATE_ALLOWANCE_MS);
  });

  it('20 workers reserving at once get 20 distinct slots, each a spacing apart', async () => {
    const pace = new DynamoPacing(h.dynamo.client, TABLE, { perMinute: 80, perHour: 500 }, clock);
    const slots = (await Promise.all(Array.from({ length: 20 }, () => pace.reserve(5)))) as number[];
    expect([...slots].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => now + i * pace.spacingMs));
  });

  it.each([
    [{ perMinute: 0, perHour: 1 }, /a minute/],
    [{ perMinute: 1, perHour: -1 }, /an hour/],
  ])('refuses %j', (limits, message) => {
    expect(() => new DynamoPacing(h.dynamo.client, TABLE, limits)).toThrow(message);
  });
});

describe('a run that must wait for its turn waits in the queue', () => {
  let h: Harness;
  let now = Date.now();
  const clock = () => now;
  let ledger: Ledger;
  beforeAll(async () => {
    h = await startHarness();
    ledger = new Ledger(h.dynamo.client, TABLE, clock);
  });
  afterAll(async () => h.close());

  /** Each case its own installation, so the paces of earlier cases do not carry over. */
  let installations = 7000;
  const installation = () => {
    const id = ++installations;
    h.sim.addInstallation({ id, account: `wave${id}` });
    return {
      repo: `wave${id}/app`,
      message: (runId: number, delivery?: string) => ({ ...h.message(runId, delivery), installationId: id }),
    };
  };

  const paced = (perMinute: number, over: Parameters<Harness['worker']>[0] = {}) => {
    const deferred: number[] = [];
    const outcomes: RunOutcome[] = [];
    const pacing = new DynamoPacing(h.dynamo.client, TABLE, { perMinute, perHour: 0 }, clock);
    const worker = h.worker({
      ledger,
      pacing,
      now: clock,
      defer: async (_r, seconds) => void deferred.push(seconds),
      onOutcome: (_m, o) => outcomes.push(o),
      ...over,
    });
    return { worker, deferred, outcomes, pacing };
  };

  it('is deferred once to its reserved slot, marked waiting, and re-run when its message comes back', async () => {
    const i = installation();
    const [a, b] = [lostRun(h, i.repo), lostRun(h, i.repo)];
    const w = paced(80);
    // The messages as delivered: once re-run, the run no longer reads as a red delivery.
    const [msgB, copyB] = [i.message(b.id), i.message(b.id, 'copy')];
    expect((await w.worker(h.sqsEvent([i.message(a.id)]))).batchItemFailures).toEqual([]);
    const res = await w.worker(h.sqsEvent([msgB]));
    expect(res.batchItemFailures).toHaveLength(1);
    expect(w.deferred).toEqual([1]);
    expect(h.sim.reruns.filter((r) => r.runId === b.id)).toHaveLength(0);
    const waiting = await ledger.get(h.sim.repoId(i.repo), b.id, 1);
    expect(waiting).toMatchObject({ state: 'waiting', slotAt: now + w.pacing.spacingMs });
    expect(waiting!.leaseUntil).toBe(waiting!.slotAt! + 60_000);

    // A second copy that arrives before the turn goes back to wait as well, and re-runs nothing.
    expect((await w.worker(h.sqsEvent([copyB]))).batchItemFailures).toHaveLength(1);
    expect(w.deferred).toEqual([1, 1]);

    now += 1000;
    expect((await w.worker(h.sqsEvent([msgB]))).batchItemFailures).toEqual([]);
    expect(w.outcomes.map((o) => o.decision)).toEqual(['retried', 'retried']);
    expect(h.sim.reruns.filter((r) => r.runId === b.id)).toHaveLength(1);
    // The copy, back at its turn too, finds the attempt decided.
    expect((await w.worker(h.sqsEvent([copyB]))).batchItemFailures).toEqual([]);
    expect(w.outcomes.at(-1)?.decision).toBe('duplicate');
    expect(h.metrics.get('RerunWaiting')).toBe(2);
  });

  it('the orphan sweep leaves a waiting run alone until its lease past the slot ends, then enqueues it again', async () => {
    const i = installation();
    const [a, b] = [lostRun(h, i.repo), lostRun(h, i.repo)];
    now = Date.now();
    const w = paced(1);
    await w.worker(h.sqsEvent([i.message(a.id)]));
    await w.worker(h.sqsEvent([i.message(b.id)]));
    const rec = await ledger.get(h.sim.repoId(i.repo), b.id, 1);
    expect(rec?.state).toBe('waiting');
    // A minute's wait plus the lease: a sweep before then finds nothing to do.
    expect(await kit(h, { offsetMs: 30_000 }).reconciler.sweep()).toMatchObject({ orphansReleased: 0 });
    const late = kit(h, { offsetMs: rec!.leaseUntil - Date.now() + 1000 });
    expect(await late.reconciler.sweep()).toMatchObject({ orphansReleased: 1, orphansRecorded: 0 });
    expect(late.enqueued().map((m) => m.runId)).toEqual([b.id]);
    expect(await ledger.get(h.sim.repoId(i.repo), b.id, 1)).toBeUndefined();
  });

  it('replay reports a waiting run as in progress', async () => {
    const i = installation();
    const run = lostRun(h, i.repo);
    const w = paced(1);
    await w.worker(h.sqsEvent([i.message(lostRun(h, i.repo).id)]));
    await w.worker(h.sqsEvent([i.message(run.id)]));
    const verdict = await replayGuard(ledger, i.message(run.id), false, now);
    expect(verdict).toMatchObject({
      kind: 'in_progress',
      reason: expect.stringMatching(/waiting for its re-run turn/),
    });
    expect((await ledger.get(h.sim.repoId(i.repo), run.id, 1)) as StoredAttempt).toMatchObject({
      state: 'waiting',
    });
  });

  it('a run with no turn free within max_wait is expired: counted, logged, nothing re-run', async () => {
    const i = installation();
    const [a, b] = [lostRun(h, i.repo), lostRun(h, i.repo)];
    const w = paced(1, { maxWaitMs: 30_000 });
    await w.worker(h.sqsEvent([i.message(a.id)]));
    expect((await w.worker(h.sqsEvent([i.message(b.id)]))).batchItemFailures).toEqual([]);
    expect(w.outcomes.map((o) => o.decision)).toEqual(['retried', 'expired']);
    expect(w.outcomes[1]!.reason).toMatch(/max_wait/);
    expect(h.sim.reruns.filter((r) => r.runId === b.id)).toHaveLength(0);
    expect(h.metrics.get('Expired')).toBe(1);
    expect(h.metrics.get('Decision{decision=expired}')).toBe(1);
  });

  it('with report: check_run, a report yields to the re-runs that wait, and goes when its turn is near', async () => {
    const busy = installation();
    const w = paced(1, { defaults: { report: 'check_run' } });
    const checks = h.sim.checkRuns.length;
    // The re-run took the slot; the next is a minute away, which a report does not wait for.
    await w.worker(h.sqsEvent([busy.message(lostRun(h, busy.repo).id)]));
    expect(w.outcomes.map((o) => o.decision)).toEqual(['retried']);
    expect(h.metrics.get('ReportYielded')).toBe(1);
    expect(h.sim.checkRuns.length).toBe(checks);

    const idle = installation();
    const fast = paced(1000, { defaults: { report: 'check_run' } });
    await fast.worker(h.sqsEvent([idle.message(lostRun(h, idle.repo).id)]));
    expect(fast.outcomes.map((o) => o.decision)).toEqual(['retried']);
    expect(h.sim.checkRuns.length).toBe(checks + 1);
  });
});

describe('settings', () => {
  it('pace defaults follow GitHub: 80 a minute, 500 an hour; a run waits 6 hours at most; no budget ceiling', () => {
    expect(runtimeSettings({}).pace).toEqual({ perMinute: 80, perHour: 500, maxWaitMs: 6 * HOUR });
    expect(runtimeSettings({}).retryBudgetPerHour).toBe(0);
    expect(runtimeSettings({ PACE_PER_MINUTE: '20', PACE_PER_HOUR: '0', MAX_WAIT_SECONDS: '600' }).pace).toEqual({
      perMinute: 20,
      perHour: 0,
      maxWaitMs: 600_000,
    });
  });

  it.each([
    ['PACE_PER_MINUTE', '0'],
    ['PACE_PER_HOUR', '-1'],
    ['MAX_WAIT_SECONDS', '43201'],
    ['MAX_WAIT_SECONDS', '10'],
  ])('refuses %s=%s', (key, value) => {
    expect(() => runtimeSettings({ [key]: value })).toThrow(new RegExp(key));
  });

  it('refuses MAX_ATTEMPTS above GitHub’s 50 re-runs of a run, naming the setting and the limit', () => {
    expect(runtimeSettings({ MAX_ATTEMPTS: '50' }).defaults.maxAttempts).toBe(50);
    expect(() => runtimeSettings({ MAX_ATTEMPTS: '51' })).toThrow(
      /MAX_ATTEMPTS: expected a whole number from 1 to 50 \(GitHub allows 50 re-runs of a run\), got "51"/,
    );
  });
});
