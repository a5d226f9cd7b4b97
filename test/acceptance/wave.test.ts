import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import type { FaultRuntime } from '../support/faults.js';
import { printSummary } from '../support/faults.js';
import { planWave, runWave, startWaveRuntime, type WaveClock } from '../support/wave.js';

const RUNS = 300;
const WORKERS = 10;
const PER_MINUTE = 80;

describe('the spot wave: one installation, every lost run re-run once, paced under GitHub’s secondary limit', () => {
  let sim: GitHubSimulator;
  let f: FaultRuntime;
  const clock: WaveClock = { now: Date.now() };

  beforeAll(async () => {
    sim = await GitHubSimulator.start({ latencyMs: 1, contentLimit: { limit: PER_MINUTE, now: () => clock.now } });
    f = await startWaveRuntime(sim, clock, { workers: WORKERS, perMinute: PER_MINUTE, perHour: 500 });
  });
  afterAll(async () => {
    await f?.close();
    await sim?.close();
  });

  it(`${RUNS} red runs, each delivered twice, ${WORKERS} worker loops, ${PER_MINUTE} a minute: none dropped, none doubled, none refused, drained within 10 % of the floor`, async () => {
    const runIds = planWave(sim, RUNS);
    const w = await runWave(sim, f, clock, runIds, { workers: WORKERS, perMinute: PER_MINUTE });
    printSummary('spot wave', {
      runs: w.runs,
      workers: WORKERS,
      'limit a minute': PER_MINUTE,
      'drain s': (w.drainMs / 1000).toFixed(1),
      'floor s': (w.floorMs / 1000).toFixed(1),
      're-run POSTs': w.rerunPosts,
      refusals: w.refusals,
      duplicates: w.duplicates,
      dropped: w.dropped,
      receives: w.receives,
      'wall s': (w.wallMs / 1000).toFixed(1),
    });

    expect(sim.reruns).toHaveLength(RUNS);
    expect(w.rerunPosts).toBe(RUNS);
    expect(w.refusals).toBe(0);
    expect(w.duplicates).toBe(0);
    expect(w.dropped).toBe(0);
    expect(w.deadLetters).toBe(0);
    expect(w.decisions.retried).toBe(RUNS);
    expect(w.decisions.expired).toBeUndefined();
    expect(w.decisions.budget_exhausted).toBeUndefined();
    expect(w.drainMs).toBeLessThanOrEqual(w.floorMs * 1.1);
    // Never faster than GitHub's rolling window allows.
    expect(w.drainMs).toBeGreaterThanOrEqual(w.windowFloorMs);
    // Each run waited once at most, and its copy was settled at once: three receives a run at most.
    expect(w.receives).toBeLessThanOrEqual(3 * RUNS);
    for (const r of await f.rt.ledger.decisions.list({ limit: RUNS })) expect(r.state).toBe('decided');
    expect(f.rt.metrics.get('RerunWaiting')).toBeGreaterThan(RUNS - 10);
  }, 240_000);
});
