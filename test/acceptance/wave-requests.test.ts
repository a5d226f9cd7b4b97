/**
 * What a wave costs GitHub's rate limit, run by run: 300 red runs of one installation, each in
 * its own repository, at the default pace (80 a minute, 500 an hour, 350 ms between an
 * installation's POSTs), so nearly every run waits for its turn and lists its jobs again before
 * its POST. That re-list is conditional on the first listing's ETag: GitHub answers 304 when
 * nothing changed, and a 304 does not count. Counted at the simulator, per run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { type FaultRuntime, printSummary } from '../support/faults.js';
import {
  planWave,
  rateLimitedByRun,
  runWave,
  startWaveRuntime,
  WAVE_INSTALLATION,
  type WaveClock,
} from '../support/wave.js';

const RUNS = 300;
const WORKERS = 10;
/** The deployed pace: PACE_PER_MINUTE, PACE_PER_HOUR and WRITE_SPACING_MS at their defaults. */
const PER_MINUTE = 80;
const PER_HOUR = 500;

const started: { sim: GitHubSimulator; f: FaultRuntime }[] = [];
afterEach(async () => {
  for (const { sim, f } of started.splice(0)) {
    await f.close();
    await sim.close();
  }
});

/** The wave, each run in its own repository; `honoursIfNoneMatch: false` is GitHub as if the condition were not sent. */
async function wave(prefix: string, honoursIfNoneMatch: boolean) {
  const clock: WaveClock = { now: Date.now() };
  const sim = await GitHubSimulator.start({ latencyMs: 1, contentLimit: { limit: PER_MINUTE, now: () => clock.now } });
  const f = await startWaveRuntime(sim, clock, { workers: WORKERS, perMinute: PER_MINUTE, perHour: PER_HOUR });
  started.push({ sim, f });
  sim.honoursIfNoneMatch = honoursIfNoneMatch;
  const runIds = planWave(sim, RUNS, prefix, WAVE_INSTALLATION, RUNS);
  sim.resetRequests();
  const w = await runWave(sim, f, clock, runIds, { workers: WORKERS, perMinute: PER_MINUTE });
  const counted = rateLimitedByRun(sim, runIds);
  const perRun = [...counted.perRun.values()];
  const histogram: Record<number, number> = {};
  for (const n of perRun) histogram[n] = (histogram[n] ?? 0) + 1;
  const total = perRun.reduce((a, b) => a + b, 0) + counted.shared;
  printSummary(`wave requests, ${honoursIfNoneMatch ? 'conditional re-list' : 'control: condition ignored'}`, {
    runs: RUNS,
    're-run POSTs': w.rerunPosts,
    'waited for a turn': f.rt.metrics.get('RerunWaiting') ?? 0,
    'rate-limited a run (max)': Math.max(...perRun),
    'rate-limited a run (mean, shared included)': (total / RUNS).toFixed(2),
    'runs by requests': JSON.stringify(histogram),
    shared: counted.shared,
    '304s': counted.notModified,
  });
  return { w, counted, perRun, total, waited: f.rt.metrics.get('RerunWaiting') ?? 0 };
}

describe('a wait costs no rate limit: the turn’s re-list is conditional on the first listing’s ETag', () => {
  it(`${RUNS} red runs, each in its own repository, the default pace: every run re-run once at ≤ 4 rate-limited requests (304s are free), counted per run at the simulator`, async () => {
    const { w, counted, perRun, total, waited } = await wave('etag', true);
    expect(w.rerunPosts).toBe(RUNS);
    expect(w.duplicates).toBe(0);
    expect(w.dropped).toBe(0);
    expect(w.refusals).toBe(0);
    // Nearly every run waited for its turn, and its re-list was answered 304.
    expect(waited).toBeGreaterThan(RUNS - 10);
    expect(counted.notModified).toBeGreaterThanOrEqual(waited);
    expect(Math.max(...perRun)).toBeLessThanOrEqual(4);
    // The organisation's `.github` file, read once for the whole wave, is no run's.
    expect(counted.shared).toBeLessThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(4 * RUNS + 1);
  }, 360_000);

  it('control: the same wave against a GitHub that ignores If-None-Match costs a fifth rate-limited request for every run that waited', async () => {
    const { w, counted, perRun, total, waited } = await wave('plain', false);
    expect(w.rerunPosts).toBe(RUNS);
    expect(w.duplicates).toBe(0);
    expect(counted.notModified).toBe(0);
    expect(waited).toBeGreaterThan(RUNS - 10);
    expect(Math.max(...perRun)).toBe(5);
    expect(perRun.filter((n) => n === 5).length).toBeGreaterThan(RUNS - 10);
    expect(total).toBeGreaterThan(4 * RUNS + 1);
  }, 360_000);
});
