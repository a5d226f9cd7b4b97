/**
 * Section 7: the spot wave. Every lost run of ONE installation arrives at once, each delivered
 * twice; the simulator enforces GitHub's secondary limit on content-generating requests, and
 * reprise is paced to the same limit (set high enough for the bench to finish in minutes).
 * Real time throughout: the drain is measured against the floor the limit allows.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startFaultRuntime } from '../reliability/faults-support.js';
import { planWave, WAVE_INSTALLATION } from '../reliability/wave-support.js';
import { GitHubSimulator } from '../sim/index.js';
import { type Cell, ms, table } from './format.js';

export interface WaveBenchResult {
  readonly runs: number;
  readonly workers: number;
  readonly perMinute: number;
  readonly latencyMs: number;
  /** From the first delivery to the last re-run the simulator accepted. */
  readonly drainMs: number;
  /** runs ÷ limit. */
  readonly floorMs: number;
  readonly rerunPosts: number;
  readonly refusals: number;
  readonly duplicates: number;
  readonly dropped: number;
  readonly deadLetters: number;
  /** Messages sent back to wait for their turn, and GitHub rate limits waited out. */
  readonly waited: number;
  readonly rateLimited: number;
  readonly decisions: Readonly<Record<string, number>>;
  readonly peakRssMb: number;
  readonly peakHeapUsedMb: number;
}

const mb = (bytes: number) => bytes / (1024 * 1024);

export async function measureWave(opts: { latencyMs: number; quick: boolean }): Promise<WaveBenchResult> {
  const runs = opts.quick ? 60 : 1000;
  const perMinute = 300;
  const workers = 20;
  const sim = await GitHubSimulator.start({ latencyMs: opts.latencyMs, contentLimit: { limit: perMinute } });
  const f = await startFaultRuntime(sim, {
    workerConcurrency: workers,
    writeSpacingMs: 0,
    env: { PACE_PER_MINUTE: String(perMinute), PACE_PER_HOUR: '0' },
  });
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const sampler = setInterval(sample, 250);
  try {
    const runIds = planWave(sim, runs, 'bench-wave');
    const start = Date.now();
    for (let i = 0; i < runIds.length; i += 50) {
      await Promise.all(
        runIds
          .slice(i, i + 50)
          .map((id, j) => f.deliver({ id, installationId: WAVE_INSTALLATION }, `bench-wave-${start}-${i + j}`, 2)),
      );
    }
    const deadline = start + 4 * (runs / perMinute) * 60_000 + 60_000;
    while (f.rt.queue.size() > 0 && Date.now() < deadline) await sleep(200);
    sample();
    const perRun = new Map<number, number>();
    for (const r of sim.reruns) perRun.set(r.runId, (perRun.get(r.runId) ?? 0) + 1);
    const decisions: Record<string, number> = {};
    for (const o of f.outcomes) decisions[o.outcome.decision] = (decisions[o.outcome.decision] ?? 0) + 1;
    const limit = sim.contentLimit!;
    return {
      runs,
      workers,
      perMinute,
      latencyMs: opts.latencyMs,
      drainMs: Math.max(start, ...sim.reruns.map((r) => r.at)) - start,
      floorMs: (runs / perMinute) * 60_000,
      rerunPosts: limit.received,
      refusals: limit.refused,
      duplicates: [...perRun.values()].filter((n) => n > 1).length,
      dropped: runIds.filter((id) => !perRun.has(id)).length,
      deadLetters: f.rt.queue.deadLetters.length,
      waited: f.rt.metrics.get('RerunWaiting') ?? 0,
      rateLimited: f.rt.metrics.get('RateLimited') ?? 0,
      decisions,
      peakRssMb: mb(peakRss),
      peakHeapUsedMb: mb(peakHeap),
    };
  } finally {
    clearInterval(sampler);
    await f.close();
    await sim.close();
  }
}

export function printWave(r: WaveBenchResult): string {
  const rows: Cell[][] = [
    ['runs (one installation, each delivered twice)', r.runs],
    ['worker concurrency', r.workers],
    ['limit (simulator and reprise alike)', `${r.perMinute} content-generating requests a minute`],
    ['time to drain', `${ms(r.drainMs)} ms`],
    ['floor (runs ÷ limit)', `${ms(r.floorMs)} ms (drain ${((r.drainMs / r.floorMs - 1) * 100).toFixed(1)} % above)`],
    ['re-run POSTs received by GitHub', r.rerunPosts],
    ['refused by GitHub (secondary limit)', `${r.refusals}; rate limits waited out: ${r.rateLimited}`],
    ['duplicate re-runs', r.duplicates],
    ['dropped (never re-run)', `${r.dropped}; dead letters: ${r.deadLetters}`],
    ['messages sent back to wait for their turn', r.waited],
    [
      'decisions',
      Object.entries(r.decisions)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ],
    ['peak RSS / heap (runtime in this process)', `${r.peakRssMb.toFixed(0)} MB / ${r.peakHeapUsedMb.toFixed(0)} MB`],
  ];
  return table(`7. Spot wave on one installation (simulator latency ${r.latencyMs} ms)`, ['measure', 'value'], rows);
}
