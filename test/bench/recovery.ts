/**
 * Section 8: time to recovery, with and without early recovery. The compiled runtime as
 * `npm start` runs it, the simulator playing GitHub's job lease (10 minutes, as GitHub's; the
 * quick form shortens it), the wall clock. Each run loses its one running job's runner at a
 * moment spread over the first seconds, and an agent reports it at once; half the runs'
 * repositories set `early_recovery: last_job`, half leave it `off`. The time to recovery is the
 * simulator's: from the runner's death to the re-run it accepted.
 */
import { GitHubSimulator } from '../sim/index.js';
import { GITHUB_LEASE, type LeaseOptions } from '../sim/lease.js';
import type { SimRun } from '../sim/runs.js';
import { type CompiledRuntime, startCompiledRuntime } from '../support/compiled-runtime.js';
import { INSTALLATION_ID, UNPACED_ENV } from '../support/harness.js';
import { announceJobs, deliverLeaseEnds, loseRunner, until } from '../support/lease-runs.js';
import { type Cell, table } from './format.js';

const SIGNAL_SECRET = 'bench-recovery-signal-secret';

export interface ModeFigures {
  readonly mode: 'last_job' | 'off';
  readonly runs: number;
  readonly reruns: number;
  readonly forceCancels: number;
  /** Seconds from the runner's death to the accepted re-run. */
  readonly p50Seconds: number | null;
  readonly p95Seconds: number | null;
}

export interface RecoveryBenchResult {
  readonly lease: LeaseOptions;
  readonly latencyMs: number;
  readonly modes: readonly ModeFigures[];
}

const nearestRank = (sorted: readonly number[], q: number): number | null =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

export async function measureRecovery(opts: { latencyMs: number; quick: boolean }): Promise<RecoveryBenchResult> {
  const lease = opts.quick ? { leaseMs: 20_000, cancelTimeoutMs: 12_000 } : GITHUB_LEASE;
  const perMode = opts.quick ? 4 : 20;
  const spreadMs = opts.quick ? 3_000 : 30_000;
  const sim = await GitHubSimulator.start({ latencyMs: opts.latencyMs });
  sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
  sim.rerunFailedJobsIncludesCancelled = true;
  sim.lease.options = lease;
  let rt: CompiledRuntime | undefined;
  try {
    rt = await startCompiledRuntime(sim, {
      ...UNPACED_ENV,
      RETRY_BUDGET_PER_HOUR: '0',
      BREAKER_MIN_OUTCOMES: '0',
      RECONCILE_INTERVAL_SECONDS: '0',
      SIGNAL_SECRET,
    });
    const w = { sim, url: rt.url };
    deliverLeaseEnds(w);
    const planned: { mode: ModeFigures['mode']; run: SimRun; runner: string; diesAt: number }[] = [];
    for (const mode of ['last_job', 'off'] as const) {
      for (let i = 0; i < perMode; i++) {
        const repo = `acme/bench-recovery-${mode}-${i}`;
        if (mode === 'last_job') sim.setRepoFile(repo, '.github/reprise.yml', 'early_recovery: last_job\n');
        const runner = `ghr-i-0${(planned.length + 1).toString(16).padStart(16, 'b')}`;
        const run = sim.addRun({
          repo,
          jobs: [
            { name: 'lint', conclusion: 'success' },
            { name: 'build', conclusion: null, status: 'in_progress', runnerName: runner },
          ],
        });
        await announceJobs(w, run);
        planned.push({ mode, run, runner, diesAt: 0 });
      }
    }
    await Promise.all(
      planned.map(async (p, i) => {
        await new Promise((r) => setTimeout(r, (i * spreadMs) / planned.length));
        p.diesAt = Date.now();
        await loseRunner(w, p.runner, SIGNAL_SECRET);
      }),
    );
    const rerunOf = (p: (typeof planned)[number]) => sim.reruns.find((r) => r.runId === p.run.id);
    await until(() => planned.every((p) => rerunOf(p)), lease.leaseMs + spreadMs + 60_000);
    const modes = (['last_job', 'off'] as const).map((mode): ModeFigures => {
      const of = planned.filter((p) => p.mode === mode);
      const secs = of
        .map((p) => rerunOf(p))
        .map((r, i) => (r ? (r.at - of[i]!.diesAt) / 1000 : undefined))
        .filter((s): s is number => s !== undefined)
        .sort((a, b) => a - b);
      return {
        mode,
        runs: of.length,
        reruns: secs.length,
        forceCancels: sim.cancelRequests.filter((c) => of.some((p) => p.run.id === c.runId)).length,
        p50Seconds: nearestRank(secs, 0.5),
        p95Seconds: nearestRank(secs, 0.95),
      };
    });
    return { lease, latencyMs: opts.latencyMs, modes };
  } finally {
    await rt?.stop();
    await sim.close();
  }
}

export function printRecovery(r: RecoveryBenchResult): string {
  const s = (n: number | null) => (n === null ? '—' : `${n.toFixed(1)} s`);
  const rows: Cell[][] = r.modes.map((m) => [
    `early_recovery: ${m.mode}`,
    `${m.reruns} of ${m.runs}`,
    m.forceCancels,
    s(m.p50Seconds),
    s(m.p95Seconds),
  ]);
  return table(
    `8. Time to recovery, from the runner's death to the accepted re-run (npm start, wall clock; lease ${r.lease.leaseMs / 1000} s, simulator latency ${r.latencyMs} ms)`,
    ['mode', 're-run', 'force-cancels', 'p50', 'p95'],
    rows,
  );
}
