/**
 * Section 7: the spot wave, as the acceptance test runs it (test/wall-clock/wave-realtime.test.ts):
 * the compiled runtime as `npm start` runs it, real HTTP, the wall clock. Every lost run of ONE
 * installation arrives at once, each delivered twice under two delivery GUIDs; the simulator
 * refuses re-run POSTs past its limit, and reprise is paced to the same limit, with the
 * spacing of an installation's POSTs scaled with it (240 a minute and 100 ms: the deployed
 * 80 and 350 ms, three times as fast, so a run finishes in minutes). Every figure is counted
 * from what the simulator received.
 */
import { awaitReruns, deliverWave, type PlannedWave, waveFigures } from '../support/wave-realtime.js';
import { planWave } from '../support/wave.js';
import { GitHubSimulator } from '../sim/index.js';
import { startCompiledRuntime } from '../support/compiled-runtime.js';
import { type Cell, ms, table } from './format.js';
import { tally } from './meters.js';
import { TreeSampler } from './process-tree.js';

export interface WaveBenchResult {
  readonly runs: number;
  readonly perMinute: number;
  readonly spacingMs: number;
  readonly latencyMs: number;
  /** From the first delivery to the last re-run the simulator accepted. */
  readonly drainMs: number;
  /** runs ÷ limit. */
  readonly floorMs: number;
  readonly rerunPosts: number;
  readonly refusals: number;
  readonly duplicates: number;
  /** Runs never re-run within twice the floor. */
  readonly dropped: number;
  /**
   * Every GitHub request the wave cost on the installation's behalf, waits and copies included,
   * per run (log downloads too); the App's own (its JWT) are `appRequestsPerRun`.
   */
  readonly requestsPerRun: number;
  /** The App's requests (its JWT, never the installation's limit) per run: delivery-log reads and token exchanges. */
  readonly appRequestsPerRun: number;
  /** Those GitHub counts against the installation's rate limit, per run: 304s and token exchanges are not. */
  readonly rateLimitedPerRun: number;
  readonly peakRssMb: number;
}

const INSTALLATION = 9800;

export async function measureWave(opts: { latencyMs: number; quick: boolean }): Promise<WaveBenchResult> {
  const runs = opts.quick ? 60 : 300;
  const perMinute = 240;
  const spacingMs = 100;
  const sim = await GitHubSimulator.start({ latencyMs: opts.latencyMs, contentLimit: { limit: perMinute } });
  const rt = await startCompiledRuntime(sim, {
    PACE_PER_MINUTE: String(perMinute),
    PACE_PER_HOUR: '0',
    WRITE_SPACING_MS: String(spacingMs),
  });
  const memory = new TreeSampler(rt.pid, 100);
  try {
    const waves: PlannedWave[] = [
      { installation: INSTALLATION, runIds: planWave(sim, runs, 'bench-wave', INSTALLATION) },
    ];
    const before = sim.requests.length;
    const start = Date.now();
    await deliverWave(rt, sim, waves, 2);
    const floorMs = (runs / perMinute) * 60_000;
    await awaitReruns(sim, waves[0]!.runIds, 2 * floorMs + 30_000);
    const w = waveFigures(sim, waves, start);
    return {
      runs,
      perMinute,
      spacingMs,
      latencyMs: opts.latencyMs,
      drainMs: w.drainMs,
      floorMs,
      rerunPosts: w.posts,
      refusals: w.refused,
      duplicates: w.doubled,
      dropped: w.never,
      requestsPerRun: sim.requests.slice(before).filter((r) => r.as !== 'app').length / runs,
      appRequestsPerRun: sim.requests.slice(before).filter((r) => r.as === 'app').length / runs,
      rateLimitedPerRun: tally(sim.requests.slice(before)).counted / runs,
      peakRssMb: memory.stop().peakBytes / (1024 * 1024),
    };
  } finally {
    memory.stop();
    await rt.stop();
    await sim.close();
  }
}

export function printWave(r: WaveBenchResult): string {
  const rows: Cell[][] = [
    ['runs (one installation, each delivered twice under two GUIDs)', r.runs],
    ['limit (simulator and reprise alike)', `${r.perMinute} re-runs a minute, ${r.spacingMs} ms between POSTs`],
    ['time to drain', `${ms(r.drainMs)} ms`],
    ['floor (runs ÷ limit)', `${ms(r.floorMs)} ms (drain ÷ floor ${(r.drainMs / r.floorMs).toFixed(2)})`],
    ['re-run POSTs received by GitHub', r.rerunPosts],
    ['refused by GitHub (secondary limit)', r.refusals],
    ['runs re-run twice', r.duplicates],
    ['runs never re-run', r.dropped],
    ['GitHub requests per run (waits and copies included)', r.requestsPerRun.toFixed(2)],
    ['of them counted against the rate limit (304s free)', r.rateLimitedPerRun.toFixed(2)],
    ["the App's own requests per run (delivery log, token exchange; its JWT)", r.appRequestsPerRun.toFixed(2)],
    ['peak RSS of the runtime process', `${r.peakRssMb.toFixed(0)} MB`],
  ];
  return table(
    `7. Spot wave on one installation, through npm start on the wall clock (simulator latency ${r.latencyMs} ms)`,
    ['measure', 'value'],
    rows,
  );
}
