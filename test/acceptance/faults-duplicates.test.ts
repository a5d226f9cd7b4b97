import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { audit, type FaultRuntime, planRuns, printSummary, startFaultRuntime } from '../support/faults.js';

const WORKERS = 10;
const BATCH = 10;
/** One batch for each worker: every run attempt is in flight at once. */
const RUNS = WORKERS * BATCH;
const COPIES = 3;
const VISIBILITY_MS = 60_000;

describe('fault injection: duplicate deliveries across concurrent workers', () => {
  let sim: GitHubSimulator;
  let f: FaultRuntime;
  // The queue's clock moves only when the test says, so a visibility timeout ends on cue
  // however slow the machine is, never by a race with the decisions.
  let queueNow = 0;

  beforeAll(async () => {
    sim = await GitHubSimulator.start({ latencyMs: 5 });
    sim.setSeed(7);
    f = await startFaultRuntime(sim, {
      workerConcurrency: WORKERS,
      visibilityTimeoutMs: VISIBILITY_MS,
      // A copy received a second time while decided is dead-lettered at its third receive.
      maxReceiveCount: 2,
      queueClock: () => queueNow,
    });
    // The workers start once every delivery is queued.
    await f.rt.poller.stop();
  });
  afterAll(async () => {
    await f?.close();
    await sim?.close();
  });

  it(`each delivery sent ${COPIES}× in parallel, each message decided by two of ${WORKERS} concurrent workers at once, ${RUNS} runs: exactly one re-run per run attempt that earned one, zero for the rest`, async () => {
    const runs = planRuns(sim, { count: RUNS, seed: 20261002, installations: 20, prefix: 'dup' });
    const statuses = (await Promise.all(runs.map((run, i) => f.deliver(run, `dup-delivery-${i}`, COPIES)))).flat();
    expect(f.rt.queue.stats()).toMatchObject({ visible: RUNS, sent: RUNS });

    // The ten workers each receive a batch as they start: every message is in flight.
    f.rt.poller.start();
    expect(f.rt.queue.stats()).toMatchObject({ visible: 0, inFlight: RUNS });
    // Their visibility timeout ends while they decide, and ten more receives take the same
    // messages: each run attempt is now being decided by two workers at once.
    queueNow += VISIBILITY_MS;
    const copies = Array.from({ length: WORKERS }, () => f.rt.poller.pollOnce());
    expect(f.rt.queue.stats()).toMatchObject({ visible: 0, inFlight: RUNS });
    // And it ends again before either acknowledges: the next receive dead-letters them all.
    queueNow += VISIBILITY_MS;
    expect(await Promise.all(copies)).toEqual(Array(WORKERS).fill(BATCH));
    await f.rt.poller.drain(40_000);
    await f.rt.poller.stop();
    const rerunRequestsBeforeRedrive = sim.rerunRequests.length;
    const deadLettered = f.rt.queue.deadLetters.length;

    // Redriving messages whose attempts are decided must change nothing.
    const decisionsBefore = f.outcomes.length;
    const redriven = f.rt.queue.redrive();
    f.rt.poller.start();
    await f.rt.poller.drain(20_000);
    await f.rt.poller.stop();
    const afterRedrive = f.outcomes.slice(decisionsBefore).map((o) => o.outcome.decision);

    const a = await audit(sim, f.rt, runs);
    const workerDuplicates = f.outcomes.filter((o) => o.outcome.decision === 'duplicate').length;
    const intakeDuplicates = statuses.filter((s) => s === 200).length;
    const queueDuplicates = f.rt.queue.stats().duplicatesDropped;
    printSummary('duplicate deliveries', {
      runs: a.runs,
      deliveries: statuses.length,
      'faults injected': `${statuses.length - RUNS} duplicate posts, ${RUNS} messages decided twice at once`,
      'dropped by intake': intakeDuplicates,
      'dropped by queue': queueDuplicates,
      'dropped by ledger claim': workerDuplicates,
      'dead-lettered then redriven': redriven,
      'earned re-runs': a.earned,
      're-runs made': a.rerunsMade,
      're-run requests received': a.rerunRequests,
      duplicates: a.duplicates,
      lost: a.lost,
    });

    expect(statuses.every((s) => s === 200 || s === 202)).toBe(true);
    expect(a.duplicates).toBe(0);
    expect(a.spurious).toBe(0);
    expect(a.lost).toBe(0);
    expect(a.rerunsMade).toBe(a.earned);
    expect(a.rerunRequests).toBeGreaterThanOrEqual(a.earned);
    expect(a.undecided).toEqual([]);
    expect(a.wrong).toEqual([]);
    // Each extra copy was dropped by the intake or by the queue's deduplication.
    expect(intakeDuplicates + queueDuplicates).toBe(RUNS * (COPIES - 1));
    // Of the two workers deciding a message at once, the ledger claim let exactly one decide;
    // each redriven copy found its attempt decided.
    expect(deadLettered).toBe(RUNS);
    expect(redriven).toBe(RUNS);
    expect(workerDuplicates).toBe(RUNS + redriven);
    expect(afterRedrive).toEqual(Array(RUNS).fill('duplicate'));
    expect(sim.rerunRequests.length).toBe(rerunRequestsBeforeRedrive);
    expect(f.rt.queue.deadLetters).toHaveLength(0);
  }, 60_000);
});
