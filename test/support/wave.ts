/**
 * A spot wave on one installation: many red runs, each lost to a reclaimed runner, each
 * delivered twice, decided by concurrent worker loops against a simulator that enforces
 * GitHub's secondary limit. Time is a hand-moved clock shared by the queue, the ledger, the
 * pace and the simulator's limit, so the figures hold however loaded the machine is.
 */
import type { GitHubSimulator } from '../sim/index.js';
import { type FaultRuntime, startFaultRuntime } from './faults.js';

const LOST = 'The self-hosted runner: {runner} lost communication with the server. Verify the machine is running.';
export const WAVE_INSTALLATION = 9500;

export interface WaveClock {
  now: number;
}

export interface WaveResult {
  readonly runs: number;
  /** Simulated time from the first delivery to the last re-run. */
  readonly drainMs: number;
  /** runs ÷ limit: the drain at the limit's average rate. */
  readonly floorMs: number;
  /**
   * The fastest GitHub's rolling window allows: each full window of `limit` requests goes at
   * once, so the last request can leave (⌈runs ÷ limit⌉ − 1) minutes after the first.
   */
  readonly windowFloorMs: number;
  readonly rerunPosts: number;
  readonly refusals: number;
  readonly duplicates: number;
  /** Runs that earned a re-run and got none (expired, budget_exhausted, undecided). */
  readonly dropped: number;
  readonly deadLetters: number;
  readonly receives: number;
  readonly decisions: Record<string, number>;
  readonly wallMs: number;
}

export async function startWaveRuntime(
  sim: GitHubSimulator,
  clock: WaveClock,
  opts: { workers: number; perMinute: number; perHour?: number },
): Promise<FaultRuntime> {
  const f = await startFaultRuntime(sim, {
    workerConcurrency: opts.workers,
    clock: () => clock.now,
    // The shared pace spaces the re-runs; this process's own spacing would only slow the test down.
    writeSpacingMs: 0,
    // The slots keep the default spacing of an installation's POSTs, as deployed.
    env: { PACE_PER_MINUTE: String(opts.perMinute), PACE_PER_HOUR: String(opts.perHour ?? 0), WRITE_SPACING_MS: '350' },
  });
  await f.rt.poller.stop();
  return f;
}

/** Adds `count` red runs of one installation, each with one job lost to a reclaimed runner. */
export function planWave(
  sim: GitHubSimulator,
  count: number,
  prefix = 'wave',
  installation = WAVE_INSTALLATION,
  repos = 12,
): number[] {
  sim.addInstallation({ id: installation, account: `${prefix}-org` });
  return Array.from({ length: count }, (_, n) => {
    const runner = `spot-${n}-i-0abc${n.toString(16).padStart(6, '0')}`;
    return sim.addRun({
      repo: `${prefix}-org/service-${n % repos}`,
      // A reclaim hits runs of many branches: each run is its branch's head, none superseded.
      headBranch: `spot-${n}`,
      jobs: [
        { name: 'build', conclusion: 'success' },
        {
          name: 'test',
          conclusion: 'failure',
          runnerName: runner,
          annotations: [{ level: 'failure', message: LOST.replace('{runner}', runner) }],
        },
      ],
    }).id;
  });
}

/**
 * Delivers every run twice, then lets `workers` loops receive and decide until nothing is
 * visible, moves the clock to the next message's return, and again, until the queue is empty.
 */
export async function runWave(
  sim: GitHubSimulator,
  f: FaultRuntime,
  clock: WaveClock,
  runIds: readonly number[],
  opts: { workers: number; perMinute: number; onRound?: () => void },
): Promise<WaveResult> {
  const wallStart = performance.now();
  const start = clock.now;
  const copies = 2;
  for (let i = 0; i < runIds.length; i += 50) {
    await Promise.all(
      runIds
        .slice(i, i + 50)
        .map((id, j) => f.deliver({ id, installationId: WAVE_INSTALLATION }, `wave-${start}-${i + j}`, copies)),
    );
  }
  let receives = 0;
  let lastRerun = start;
  let retried = 0;
  for (;;) {
    await Promise.all(
      Array.from({ length: opts.workers }, async () => {
        for (let n = await f.rt.poller.pollOnce(); n > 0; n = await f.rt.poller.pollOnce()) receives += n;
      }),
    );
    opts.onRound?.();
    // The clock stands still within a round: a re-run made in it was made at this time.
    const now = f.outcomes.filter((o) => o.outcome.decision === 'retried').length;
    if (now > retried) [retried, lastRerun] = [now, clock.now];
    const next = f.rt.queue.nextVisibleAt();
    if (next === undefined) break;
    clock.now = Math.max(clock.now, next);
  }
  const perRun = new Map<number, number>();
  for (const r of sim.reruns) perRun.set(r.runId, (perRun.get(r.runId) ?? 0) + 1);
  const decisions: Record<string, number> = {};
  for (const o of f.outcomes) decisions[o.outcome.decision] = (decisions[o.outcome.decision] ?? 0) + 1;
  const limit = sim.contentLimit;
  return {
    runs: runIds.length,
    drainMs: lastRerun - start,
    floorMs: (runIds.length / opts.perMinute) * 60_000,
    windowFloorMs: (Math.ceil(runIds.length / opts.perMinute) - 1) * 60_000,
    rerunPosts: limit?.received ?? sim.reruns.length,
    refusals: limit?.refused ?? 0,
    duplicates: [...perRun.values()].filter((n) => n > 1).length,
    dropped: runIds.filter((id) => (perRun.get(id) ?? 0) === 0).length,
    deadLetters: f.rt.queue.deadLetters.length,
    receives,
    decisions,
    wallMs: performance.now() - wallStart,
  };
}

export interface RequestsByRun {
  /** Run id → requests GitHub counted against the rate limit for it (304s are not). */
  readonly perRun: ReadonlyMap<number, number>;
  /** Counted requests no one run made (the organisation's `.github` file). */
  readonly shared: number;
  /** Conditional requests answered 304: free. */
  readonly notModified: number;
}

const REPO_PATH = /^\/repos\/([^/]+\/[^/]+)\//;

/**
 * What each run of a wave cost GitHub's rate limit, read from what the simulator received: REST
 * requests by the run's repository (each run its own repository), GraphQL queries by the jobs
 * they name. Token exchanges (the App's JWT) and log downloads are not the installation's rate
 * limit; a 304 is free.
 */
export function rateLimitedByRun(sim: GitHubSimulator, runIds: readonly number[]): RequestsByRun {
  const byRepo = new Map<string, number>();
  const byNode = new Map<string, number>();
  for (const id of runIds) {
    const run = sim.run(id);
    if (byRepo.has(run.repo)) throw new Error(`runs ${byRepo.get(run.repo)} and ${id} share ${run.repo}`);
    byRepo.set(run.repo, id);
    for (const a of run.attempts) for (const j of a.jobs) byNode.set(j.nodeId, id);
  }
  const perRun = new Map<number, number>(runIds.map((id) => [id, 0]));
  let shared = 0;
  let notModified = 0;
  for (const r of sim.requests) {
    if (r.path.startsWith('/app/') || r.path.startsWith('/_logs/')) continue;
    if (r.status === 304) {
      notModified++;
      continue;
    }
    const repo = REPO_PATH.exec(r.path)?.[1];
    const ids =
      r.path === '/graphql'
        ? Object.values((r.body as { variables?: Record<string, unknown> } | undefined)?.variables ?? {}).flat()
        : [];
    const runs = new Set(repo ? [byRepo.get(repo)] : ids.map((n) => byNode.get(String(n))));
    runs.delete(undefined);
    if (runs.size === 1) {
      const id = [...runs][0]!;
      perRun.set(id, (perRun.get(id) ?? 0) + 1);
    } else shared++;
  }
  return { perRun, shared, notModified };
}
