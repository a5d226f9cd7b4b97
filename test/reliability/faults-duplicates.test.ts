import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { audit, type FaultRuntime, planRuns, printSummary, startFaultRuntime } from './faults-support.js';

const RUNS = 200;
const COPIES = 3;
const WORKERS = 10;

describe('fault injection: duplicate deliveries across concurrent workers', () => {
  let sim: GitHubSimulator;
  let f: FaultRuntime;

  beforeAll(async () => {
    sim = await GitHubSimulator.start({ latencyMs: 5 });
    sim.setSeed(7);
    // A visibility timeout shorter than a decision: messages still being decided are
    // received again by other pollers, so workers race on the same run attempt.
    f = await startFaultRuntime(sim, { workerConcurrency: WORKERS, visibilityTimeoutMs: 250 });
  });
  afterAll(async () => {
    await f?.close();
    await sim?.close();
  });

  it(`each delivery sent ${COPIES}× in parallel across ${WORKERS} concurrent workers, ${RUNS} runs: exactly one re-run per run attempt that earned one, zero for the rest`, async () => {
    const runs = planRuns(sim, { count: RUNS, seed: 20261002, installations: 20, prefix: 'dup' });
    const statuses = (await Promise.all(runs.map((run, i) => f.deliver(run, `dup-delivery-${i}`, COPIES)))).flat();
    await f.rt.poller.drain(40_000);
    // A decision may still be running after another worker acknowledged its message.
    await f.rt.poller.stop();
    const rerunsBeforeRedrive = sim.reruns.length;

    // Messages received too often while others decided them were dead-lettered: redriving
    // them must change nothing.
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
      'faults injected': `${statuses.length - RUNS} duplicate posts`,
      'dropped by intake': intakeDuplicates,
      'dropped by queue': queueDuplicates,
      'dropped by ledger claim': workerDuplicates,
      'dead-lettered then redriven': redriven,
      'earned re-runs': a.earned,
      're-runs made': a.rerunsMade,
      duplicates: a.duplicates,
      lost: a.lost,
    });

    expect(statuses.every((s) => s === 200 || s === 202)).toBe(true);
    expect(a.duplicates).toBe(0);
    expect(a.spurious).toBe(0);
    expect(a.lost).toBe(0);
    expect(a.rerunsMade).toBe(a.earned);
    expect(a.undecided).toEqual([]);
    expect(a.wrong).toEqual([]);
    expect(f.rt.queue.deadLetters).toHaveLength(0);
    expect(sim.reruns.length).toBe(rerunsBeforeRedrive);
    expect(afterRedrive.filter((d) => d !== 'duplicate')).toEqual([]);
    // The copies really did reach the dedupe layers, the ledger claim included.
    expect(intakeDuplicates + queueDuplicates).toBeGreaterThan(0);
    expect(workerDuplicates).toBeGreaterThan(0);
  }, 60_000);
});
