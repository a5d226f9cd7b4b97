/**
 * The spot wave in real time, through the compiled runtime as `npm start` runs it: real HTTP,
 * the wall clock, the embedded queue with its real visibility timeout, and a simulator that
 * refuses re-run POSTs past its limit. Scaled to finish in about a minute: the limit is higher
 * than GitHub's 80 a minute, and the spacing of an installation's POSTs scaled with it.
 */
import { describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { type CompiledRuntime, startCompiledRuntime } from '../support/compiled-runtime.js';
import { printSummary } from '../support/faults.js';
import { type Arrival, awaitReruns, deliverWave, type PlannedWave, waveFigures } from '../support/wave-realtime.js';
import { planWave } from '../support/wave.js';

/** A simulator and a runtime of the test's own, both stopped when it ends, pass or fail. */
async function onWallClock<T>(
  simOptions: Parameters<typeof GitHubSimulator.start>[0],
  env: Record<string, string>,
  body: (sim: GitHubSimulator, rt: CompiledRuntime) => Promise<T>,
): Promise<T> {
  const sim = await GitHubSimulator.start(simOptions);
  let rt: CompiledRuntime | undefined;
  try {
    rt = await startCompiledRuntime(sim, env);
    return await body(sim, rt);
  } finally {
    await rt?.stop();
    await sim.close();
  }
}

/** 240 a minute with 100 ms between POSTs: the deployed 80 with 350 ms, three times as fast. */
const LIMIT = 240;
const SPACING_MS = 100;

// The two waves of one installation spend most of their time waiting for GitHub's minute, so they
// run side by side, each with its own simulator and runtime.
describe.concurrent('the spot wave on the wall clock (compiled runtime, real HTTP, GitHub’s limit on)', () => {
  it(`300 red runs of one installation, each delivered twice under two GUIDs, ${LIMIT} a minute: every run re-run exactly once, 0 refusals, drain ≤ 1.15 × runs ÷ limit`, async ({
    expect,
  }) => {
    const RUNS = 300;
    const env = { PACE_PER_MINUTE: String(LIMIT), PACE_PER_HOUR: '0', WRITE_SPACING_MS: String(SPACING_MS) };
    await onWallClock({ contentLimit: { limit: LIMIT } }, env, async (sim, rt) => {
      const waves: PlannedWave[] = [{ installation: 9700, runIds: planWave(sim, RUNS, 'rt-wave', 9700) }];
      const startedAt = Date.now();
      const statuses = await deliverWave(rt, sim, waves, 2);
      expect(statuses.every((s) => s === 202)).toBe(true);
      const floorMs = (RUNS / LIMIT) * 60_000;
      await awaitReruns(sim, waves[0]!.runIds, 2 * floorMs);
      const w = waveFigures(sim, waves, startedAt);
      printSummary('spot wave, wall clock', {
        runs: RUNS,
        'limit a minute': LIMIT,
        'drain s': (w.drainMs / 1000).toFixed(1),
        'floor s': (floorMs / 1000).toFixed(1),
        'drain ÷ floor': (w.drainMs / floorMs).toFixed(2),
        're-run POSTs': w.posts,
        refusals: w.refused,
        doubled: w.doubled,
        never: w.never,
      });
      expect(w.never, rt.tail()).toBe(0);
      expect(w.doubled).toBe(0);
      expect(w.onceExactly).toBe(RUNS);
      expect(w.posts).toBe(RUNS);
      expect(sim.contentLimit?.refused).toBe(0);
      expect(w.drainMs).toBeLessThanOrEqual(1.15 * floorMs);
    });
  }, 240_000);

  it('refusals in GitHub’s bare shape and a simulator limit below reprise’s pace: every run re-run exactly once in the end, none rerun_rejected', async ({
    expect,
  }) => {
    const RUNS = 45;
    // GitHub's limit is lower than the pace reprise was told: some POSTs are refused with the
    // message alone (no retry-after, no reset), which asks for a wait of at least a minute.
    const simOptions = { contentLimit: { limit: 30, answer: { status: 403, signal: 'message' } } } as const;
    const events = `${process.env.TMPDIR ?? '/tmp'}/reprise-bare-${process.pid}-${Date.now()}.jsonl`;
    const env = { PACE_PER_MINUTE: '60', PACE_PER_HOUR: '0', WRITE_SPACING_MS: '500', EVENTS_FILE: events };
    await onWallClock(simOptions, env, async (sim, rt) => {
      const waves: PlannedWave[] = [{ installation: 9701, runIds: planWave(sim, RUNS, 'rt-bare', 9701) }];
      const startedAt = Date.now();
      await deliverWave(rt, sim, waves, 1);
      await awaitReruns(sim, waves[0]!.runIds, 200_000);
      const w = waveFigures(sim, waves, startedAt);
      const { readFileSync, rmSync } = await import('node:fs');
      const decisions = readFileSync(events, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { 'detail-type'?: string; detail?: { decision?: string } })
        .map((e) => e.detail?.decision)
        .filter((d): d is string => d !== undefined);
      rmSync(events, { force: true });
      printSummary('spot wave, bare refusals', {
        runs: RUNS,
        'drain s': (w.drainMs / 1000).toFixed(1),
        're-run POSTs': w.posts,
        refusals: w.refused,
        never: w.never,
      });
      expect(w.refused).toBeGreaterThan(0);
      expect(w.never, rt.tail()).toBe(0);
      expect(w.doubled).toBe(0);
      expect(decisions.filter((d) => d === 'retried')).toHaveLength(RUNS);
      expect(decisions).not.toContain('rerun_rejected');
    });
  }, 300_000);
});

describe('ten installations’ waves on the wall clock', () => {
  // Interleaved, as a reclaim across organisations arrives; or one organisation's whole wave
  // first, where worker loops parked on its turns would starve the others.
  it.each<Arrival>(['interleaved', 'one after another'])(
    '10 installations × 60 runs at 80 a minute each, arriving %s: drain ≤ 1.2 × 45 s, and no installation’s last re-run more than 10 s after its own floor',
    async (arrival) => {
      const PER = 60;
      await onWallClock(
        { contentLimit: { limit: 80 } },
        { PACE_PER_MINUTE: '80', PACE_PER_HOUR: '0' },
        async (sim, rt) => {
          const waves: PlannedWave[] = Array.from({ length: 10 }, (_, i) => ({
            installation: 9710 + i,
            runIds: planWave(sim, PER, `rt-fleet-${i}`, 9710 + i),
          }));
          const startedAt = Date.now();
          await deliverWave(rt, sim, waves, 1, arrival);
          const floorMs = (PER / 80) * 60_000;
          await awaitReruns(
            sim,
            waves.flatMap((w) => w.runIds),
            3 * floorMs,
          );
          const w = waveFigures(sim, waves, startedAt);
          const slowest = Math.max(...w.drainByInstallation.values());
          printSummary(`spot wave, ten installations, ${arrival}`, {
            runs: w.runs,
            'drain s': (w.drainMs / 1000).toFixed(1),
            'slowest installation s': (slowest / 1000).toFixed(1),
            'fastest installation s': (Math.min(...w.drainByInstallation.values()) / 1000).toFixed(1),
            'floor s': (floorMs / 1000).toFixed(1),
            refusals: w.refused,
            never: w.never,
          });
          expect(w.never, rt.tail()).toBe(0);
          expect(w.doubled).toBe(0);
          expect(w.refused).toBe(0);
          expect(w.onceExactly).toBe(w.runs);
          expect(w.drainMs).toBeLessThanOrEqual(1.2 * floorMs);
          for (const [installation, drain] of w.drainByInstallation) {
            expect(drain, `installation ${installation}`).toBeLessThanOrEqual(floorMs + 10_000);
          }
        },
      );
    },
    300_000,
  );
});
