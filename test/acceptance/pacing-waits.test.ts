import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentSettings } from '../../lib/config/env.js';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { LATE_ALLOWANCE_MS } from '../../lib/ledger/pacing.js';
import type { StoredAttempt } from '../../lib/ledger/attributes.js';
import { replayGuard } from '../../lib/replay/replay-guard.js';
import type { RunOutcome } from '../../lib/worker/result.js';
import { startHarness, TABLE, type Harness } from '../support/harness.js';
import { kit, lostRun } from '../support/reconcile-kit.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('a run that must wait for its turn waits in the queue', () => {
  let h: Harness;
  let now = Date.now();
  const clock = () => now;
  let ledger: Ledger;
  beforeAll(async () => {
    h = await startHarness();
    ledger = openLedger(h.dynamo.client, TABLE, clock);
  });
  afterAll(async () => h.close());

  /** Each case its own installation, so the paces of earlier cases do not carry over. */
  let installations = 7000;
  const installation = () => {
    const id = ++installations;
    h.sim.addInstallation({ id, account: `wave${id}` });
    return {
      repo: `wave${id}/app`,
      message: (runId: number, delivery?: string) => h.message(runId, delivery, id),
    };
  };

  const paced = (perMinute: number, over: Parameters<Harness['worker']>[0] = {}) => {
    const deferred: number[] = [];
    const outcomes: RunOutcome[] = [];
    const pacing = ledger.pacing({ perMinute, perHour: 0, spacingMs: Math.ceil(62_000 / perMinute) });
    const worker = h.worker({
      ledger,
      pacing,
      now: clock,
      defer: async (_r, seconds) => void deferred.push(seconds),
      onOutcome: (_m, o) => outcomes.push(o),
      // One repository's runs: the reserved slot's mechanics, without repositories taking turns (last case).
      repositoryShare: 1,
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
    const waiting = await ledger.attempts.get(h.sim.repoId(i.repo), b.id, 1);
    expect(waiting).toMatchObject({ state: 'waiting', slotAt: now + w.pacing.spacingMs });
    expect(waiting!.leaseUntil).toBe(waiting!.slotAt! + 60_000);

    // A copy under another delivery that arrives before the turn is settled: the waiting message comes back itself.
    expect((await w.worker(h.sqsEvent([copyB]))).batchItemFailures).toEqual([]);
    expect(w.outcomes.at(-1)).toMatchObject({
      decision: 'duplicate',
      reason: expect.stringMatching(/waits for its re-run turn/),
    });
    expect(w.deferred).toEqual([1]);
    // The waiting message itself, back before its turn (a clock a little ahead), waits out the rest.
    now += 500;
    expect((await w.worker(h.sqsEvent([msgB]))).batchItemFailures).toHaveLength(1);
    expect(w.deferred).toEqual([1, 1]);

    now += 500;
    expect((await w.worker(h.sqsEvent([msgB]))).batchItemFailures).toEqual([]);
    expect(w.outcomes.map((o) => o.decision)).toEqual(['retried', 'duplicate', 'retried']);
    expect(h.sim.reruns.filter((r) => r.runId === b.id)).toHaveLength(1);
    expect(h.metrics.get('RerunWaiting')).toBe(2);
  });

  it('two copies of a run in one batch: the first waits, the second is settled at once, and nothing holds the group', async () => {
    const i = installation();
    const [a, b] = [lostRun(h, i.repo), lostRun(h, i.repo)];
    const w = paced(80);
    await w.worker(h.sqsEvent([i.message(a.id)]));
    const [first, copy] = [i.message(b.id, 'first'), i.message(b.id, 'copy')];
    const event = h.sqsEvent([first, copy]);
    const res = await w.worker(event);
    // Only the waiting message stays in the queue; the copy is acknowledged, never skipped in flight.
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]!.messageId }]);
    expect(w.deferred).toEqual([1]);
    expect(w.outcomes.at(-1)?.decision).toBe('duplicate');
    now += 1000;
    await w.worker(h.sqsEvent([first]));
    expect(w.outcomes.at(-1)?.decision).toBe('retried');
    expect(h.sim.reruns.filter((r) => r.runId === b.id)).toHaveLength(1);
  });

  it('a decision that waited costs one listing and the call at its turn: its line counts both halves', async () => {
    const i = installation();
    const [a, b] = [lostRun(h, i.repo), lostRun(h, i.repo)];
    const w = paced(80);
    await w.worker(h.sqsEvent([i.message(a.id)]));
    const before = h.sim.requests.length;
    const msg = i.message(b.id);
    await w.worker(h.sqsEvent([msg]));
    const sent = h.sim.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    // Counted apart: the App's read of its delivery log (its JWT), beside the first listing.
    expect(sent.filter((r) => r === 'GET /app/hook/deliveries')).toHaveLength(1);
    const firstHalf = sent.filter((r) => r !== 'GET /app/hook/deliveries');
    now += 1000;
    const mid = h.sim.requests.length;
    await w.worker(h.sqsEvent([msg]));
    const atTurn = h.sim.requests.slice(mid);
    // The turn checks the belief again: the App reads its delivery log once more, counted apart.
    expect(atTurn.filter((r) => r.as === 'app').map((r) => r.path)).toEqual(['/app/hook/deliveries']);
    const installationsOwn = atTurn.filter((r) => r.as !== 'app');
    const turn = installationsOwn.map((r) => `${r.method} ${r.path}`);
    expect(turn).toEqual([
      `GET /repos/${i.repo}/actions/runs/${b.id}/jobs`,
      `POST /repos/${i.repo}/actions/runs/${b.id}/rerun-failed-jobs`,
    ]);
    // The listing at the turn was conditional on the first one's ETag, and nothing had changed: a free 304.
    expect(installationsOwn.map((r) => r.status)).toEqual([304, 201]);
    // The repository file is cached by then: the listing and the annotations before the wait.
    expect(firstHalf.filter((r) => !r.includes('/contents/'))).toHaveLength(2);
    expect(w.outcomes.at(-1)).toMatchObject({ decision: 'retried', requests: firstHalf.length + 2 });
    expect(h.log.named('decision').at(-1)).toMatchObject({ requests: firstHalf.length + 2, app_requests: 2 });
    expect(firstHalf.length + turn.length).toBeLessThanOrEqual(4);
  });

  it('a run a person re-ran during its wait: the turn’s conditional listing answers 200 with the new attempt, decided duplicate, nothing sent', async () => {
    const i = installation();
    const [a, b] = [lostRun(h, i.repo), lostRun(h, i.repo)];
    const w = paced(80);
    await w.worker(h.sqsEvent([i.message(a.id)]));
    const msg = i.message(b.id);
    await w.worker(h.sqsEvent([msg]));
    expect(w.deferred).toEqual([1]);
    // The person's re-run, through GitHub's API, while the run waits.
    const token = h.sim.issueToken(installations);
    const person = await fetch(`${h.sim.url}/repos/${i.repo}/actions/runs/${b.id}/rerun-failed-jobs`, {
      method: 'POST',
      headers: { authorization: `token ${token}` },
    });
    expect(person.status).toBe(201);
    now += 1000;
    const mid = h.sim.requests.length;
    await w.worker(h.sqsEvent([msg]));
    const atTurn = h.sim.requests.slice(mid).filter((r) => r.as !== 'app');
    expect(atTurn.map((r) => [`${r.method} ${r.path}`, r.status])).toEqual([
      [`GET /repos/${i.repo}/actions/runs/${b.id}/jobs`, 200],
    ]);
    expect(w.outcomes.at(-1)).toMatchObject({
      decision: 'duplicate',
      reason: expect.stringMatching(/already re-run: the run is at attempt 2/),
    });
    // Only the person's re-run: reprise sent none.
    expect(h.sim.rerunTally(b.id)).toMatchObject({ received: 1, accepted: 1 });
  });

  it('a turn that comes back later than the allowance takes a new slot instead of bursting with the others', async () => {
    const i = installation();
    const [a, b] = [lostRun(h, i.repo), lostRun(h, i.repo)];
    const w = paced(1);
    await w.worker(h.sqsEvent([i.message(a.id)]));
    const msg = i.message(b.id);
    await w.worker(h.sqsEvent([msg]));
    const rec = await ledger.attempts.get(h.sim.repoId(i.repo), b.id, 1);
    // Back long after its slot (a queue that held it): the slot is given up for a new one, a window on.
    now = rec!.slotAt! + LATE_ALLOWANCE_MS + 1;
    const res = await w.worker(h.sqsEvent([msg]));
    expect(res.batchItemFailures).toHaveLength(1);
    expect(h.metrics.get('LateTurn')).toBe(1);
    expect(h.sim.reruns.filter((r) => r.runId === b.id)).toHaveLength(0);
    const again = await ledger.attempts.get(h.sim.repoId(i.repo), b.id, 1);
    expect(again).toMatchObject({ state: 'waiting', waitingSince: rec!.waitingSince });
    expect(again!.slotAt!).toBeGreaterThanOrEqual(rec!.slotAt! + 60_000 + LATE_ALLOWANCE_MS);
    now = again!.slotAt!;
    await w.worker(h.sqsEvent([msg]));
    expect(w.outcomes.at(-1)?.decision).toBe('retried');
    expect(h.sim.reruns.filter((r) => r.runId === b.id)).toHaveLength(1);
  });

  it('the orphan sweep leaves a waiting run alone until its lease past the slot ends, then enqueues it again', async () => {
    const i = installation();
    const [a, b] = [lostRun(h, i.repo), lostRun(h, i.repo)];
    now = Date.now();
    const w = paced(1);
    await w.worker(h.sqsEvent([i.message(a.id)]));
    await w.worker(h.sqsEvent([i.message(b.id)]));
    const rec = await ledger.attempts.get(h.sim.repoId(i.repo), b.id, 1);
    expect(rec?.state).toBe('waiting');
    // A minute's wait plus the lease: a sweep before then finds nothing to do.
    expect(await kit(h, { offsetMs: 30_000 }).reconciler.sweep()).toMatchObject({ orphansReleased: 0 });
    const late = kit(h, { offsetMs: rec!.leaseUntil - Date.now() + 1000 });
    expect(await late.reconciler.sweep()).toMatchObject({ orphansReleased: 1, orphansRecorded: 0 });
    expect(late.enqueued().map((m) => m.runId)).toEqual([b.id]);
    expect(await ledger.attempts.get(h.sim.repoId(i.repo), b.id, 1)).toBeUndefined();
  });

  it('replay reports a waiting run as in progress', async () => {
    const i = installation();
    const run = lostRun(h, i.repo);
    const w = paced(1);
    await w.worker(h.sqsEvent([i.message(lostRun(h, i.repo).id)]));
    await w.worker(h.sqsEvent([i.message(run.id)]));
    const verdict = await replayGuard(ledger.attempts, i.message(run.id), false, now);
    expect(verdict).toMatchObject({
      kind: 'in_progress',
      reason: expect.stringMatching(/waiting for its re-run turn/),
    });
    expect((await ledger.attempts.get(h.sim.repoId(i.repo), run.id, 1)) as StoredAttempt).toMatchObject({
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

  it('with repositories taking turns (the default), a run whose turn is not near waits in its repository’s line, then takes its slot and is re-run: two asks of the pace, one wait', async () => {
    const i = installation();
    const [a, b] = [lostRun(h, i.repo), lostRun(h, i.repo)];
    const w = paced(1, { repositoryShare: 0.5 });
    let asks = 0;
    const reserveWithinShare = w.pacing.reserveWithinShare.bind(w.pacing);
    w.pacing.reserveWithinShare = (...args) => (asks++, reserveWithinShare(...args));
    await w.worker(h.sqsEvent([i.message(a.id)]));
    const msg = i.message(b.id);
    expect((await w.worker(h.sqsEvent([msg]))).batchItemFailures).toHaveLength(1);
    const waiting = await ledger.attempts.get(h.sim.repoId(i.repo), b.id, 1);
    expect(waiting).toMatchObject({ state: 'waiting', unreserved: true });
    expect(w.outcomes.map((o) => o.decision)).toEqual(['retried']);
    // Back at its turn: the slot is taken then, and the run is re-run.
    now = waiting!.slotAt!;
    expect((await w.worker(h.sqsEvent([msg]))).batchItemFailures).toEqual([]);
    expect(w.outcomes.map((o) => o.decision)).toEqual(['retried', 'retried']);
    // The first run took the slot free then; the second asked for its turn, then for its slot.
    expect(asks).toBe(3);
    expect(h.metrics.get('RepositoryTurnShare')).toBeGreaterThanOrEqual(1);
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
  it('pace defaults follow GitHub: 80 a minute, 500 an hour; a run waits 6 hours at most; no budget ceiling; a repository holds at most half the wait ahead', () => {
    expect(deploymentSettings({}).pace).toEqual({
      perMinute: 80,
      perHour: 500,
      spacingMs: 350,
      maxWaitMs: 6 * HOUR,
      repositoryShare: 0.5,
    });
    expect(deploymentSettings({}).retryBudgetPerHour).toBe(0);
    expect(
      deploymentSettings({
        PACE_PER_MINUTE: '20',
        PACE_PER_HOUR: '0',
        MAX_WAIT_SECONDS: '600',
        WRITE_SPACING_MS: '100',
      }).pace,
    ).toEqual({
      perMinute: 20,
      perHour: 0,
      spacingMs: 100,
      maxWaitMs: 600_000,
      repositoryShare: 0.5,
    });
  });

  it.each([
    ['PACE_PER_MINUTE', '0'],
    ['PACE_PER_HOUR', '-1'],
    ['MAX_WAIT_SECONDS', '43201'],
    ['MAX_WAIT_SECONDS', '10'],
    ['WRITE_SPACING_MS', '-1'],
    ['WRITE_SPACING_MS', '60001'],
  ])('refuses %s=%s', (key, value) => {
    expect(() => deploymentSettings({ [key]: value })).toThrow(new RegExp(key));
  });

  it('refuses MAX_ATTEMPTS above GitHub’s 50 re-runs of a run, naming the setting and the limit', () => {
    expect(deploymentSettings({ MAX_ATTEMPTS: '50' }).defaults.maxAttempts).toBe(50);
    expect(() => deploymentSettings({ MAX_ATTEMPTS: '51' })).toThrow(
      /MAX_ATTEMPTS: expected a whole number from 1 to 50 \(GitHub allows 50 re-runs of a run\), got "51"/,
    );
  });
});
