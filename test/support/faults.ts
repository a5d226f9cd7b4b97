/**
 * Shared parts of the fault-injection suites: a seeded mix of runs with known right answers,
 * the local runtime wired to the simulator, and the audit that counts re-runs, duplicates and
 * lost decisions from the re-run requests GitHub (the simulator) received and what the ledger
 * recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Runtime, type RuntimeOptions, startRuntime } from '../../lib/local/runtime.js';
import type { DecisionKind, RunMessage } from '../../lib/model.js';
import type { SweepCounts } from '../../lib/reconcile/reconciler.js';
import type { RunOutcome } from '../../lib/worker/result.js';
import { type GitHubSimulator, NO_RERUNS, type SimJobSpec, tallyReruns } from '../sim/index.js';
import { testPrivateKey, UNPACED_ENV } from './harness.js';
import { MemoryLog } from './memory-log.js';
import { post, signedDelivery, workflowRunPayload } from './webhooks.js';
import { SHUTDOWN_LOG, TEXT } from './evidence.js';

export const SECRET = 'reliability-webhook-secret';

const EXIT = 'Process completed with exit code 1.';

/** Each kind of red run and the decision it must get. */
export const RUN_KINDS = {
  /** A runner-loss annotation on the only failed job. */
  lost: 'retried',
  /** No annotation; the job log carries the shutdown line (reads the log host). */
  'lost-in-log': 'retried',
  /** A matrix: two jobs passed, one was lost. */
  'lost-in-matrix': 'retried',
  /** A test failed. */
  genuine: 'genuine_failure',
  /** One job lost, another failed for real: the real failure blocks the re-run. */
  'lost-beside-genuine': 'genuine_failure',
  /** A person cancelled the run. */
  'cancelled-by-person': 'vetoed',
} as const satisfies Record<string, DecisionKind>;

export type RunKind = keyof typeof RUN_KINDS;

function jobsFor(kind: RunKind, n: number): SimJobSpec[] {
  const lost = (name: string): SimJobSpec => ({
    name,
    conclusion: 'failure',
    runnerName: `runner-${n}-${name}`,
    annotations: [{ level: 'failure', message: TEXT.selfHostedNamed(`runner-${n}-${name}`) }],
  });
  switch (kind) {
    case 'lost':
      return [lost('test')];
    case 'lost-in-log':
      return [{ name: 'test', conclusion: 'failure', annotations: [], log: SHUTDOWN_LOG }];
    case 'lost-in-matrix':
      return [{ name: 'shard-1', conclusion: 'success' }, lost('shard-2'), { name: 'shard-3', conclusion: 'success' }];
    case 'genuine':
      return [{ name: 'test', conclusion: 'failure', annotations: [{ level: 'failure', message: EXIT }] }];
    case 'lost-beside-genuine':
      return [lost('e2e'), { name: 'unit', conclusion: 'failure', annotations: [{ level: 'failure', message: EXIT }] }];
    case 'cancelled-by-person':
      return [
        {
          name: 'test',
          conclusion: 'cancelled',
          annotations: [{ level: 'failure', message: 'The run was canceled by @octocat.' }],
        },
      ];
  }
}

/** A small seeded generator (mulberry32): the same seed plans the same runs. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PlannedRun {
  readonly id: number;
  readonly repo: string;
  readonly repoId: number;
  readonly installationId: number;
  readonly kind: RunKind;
  readonly expected: DecisionKind;
  readonly earnsRerun: boolean;
}

/**
 * Adds `count` red runs of seeded kinds, spread over `installations` installations (one
 * account each). Re-run POSTs are spaced per installation, so spreading keeps the suites fast.
 */
export function planRuns(
  sim: GitHubSimulator,
  opts: { count: number; seed: number; installations: number; firstInstallation?: number; prefix: string },
): PlannedRun[] {
  const rand = seeded(opts.seed);
  const kinds = Object.keys(RUN_KINDS) as RunKind[];
  const first = opts.firstInstallation ?? 9000;
  for (let i = 0; i < opts.installations; i++) {
    sim.addInstallation({ id: first + i, account: `${opts.prefix}-org-${i}` });
  }
  const runs: PlannedRun[] = [];
  for (let n = 0; n < opts.count; n++) {
    const kind = kinds[Math.floor(rand() * kinds.length)] as RunKind;
    const slot = n % opts.installations;
    const repo = `${opts.prefix}-org-${slot}/repo-${n % 7}`;
    const run = sim.addRun({ repo, jobs: jobsFor(kind, n) });
    const expected = RUN_KINDS[kind];
    runs.push({
      id: run.id,
      repo,
      repoId: sim.repoId(repo),
      installationId: first + slot,
      kind,
      expected,
      earnsRerun: expected === 'retried',
    });
  }
  return runs;
}

export interface FaultRuntime {
  readonly rt: Runtime;
  readonly log: MemoryLog;
  readonly outcomes: { message: RunMessage; outcome: RunOutcome }[];
  /**
   * Runs `at` inside the worker the moment its nth decision is made (while that decision's
   * message is still in flight), and resolves with what it returned. Ask before the nth.
   */
  atOutcome<T>(n: number, at: () => T): Promise<T>;
  /** Posts the run's delivery `times` times in parallel; answers the HTTP statuses. */
  deliver(run: Pick<PlannedRun, 'id' | 'installationId'>, guid: string, times?: number): Promise<number[]>;
  close(): Promise<void>;
}

/** The local runtime's environment for a suite: the simulator's GitHub, its log host, no reconciler timer. */
export function faultRuntimeEnv(sim: GitHubSimulator, secret = SECRET): Record<string, string> {
  return {
    APP_ID: '1234567',
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: secret,
    GITHUB_API_URL: sim.url,
    LOG_HOSTS: '127.0.0.1',
    // Sweeps run only where a suite asks for them, so their figures can be counted.
    RECONCILE_INTERVAL_SECONDS: '0',
    // The pace is the wave suite's subject; elsewhere it stays out of the way.
    ...UNPACED_ENV,
  };
}

export async function startFaultRuntime(
  sim: GitHubSimulator,
  opts: Omit<RuntimeOptions, 'env' | 'log' | 'onOutcome'> & { env?: Record<string, string> } = {},
): Promise<FaultRuntime> {
  const log = new MemoryLog();
  const outcomes: FaultRuntime['outcomes'] = [];
  const watchers: { n: number; fire: () => void }[] = [];
  const { env, ...rest } = opts;
  const rt = await startRuntime({
    env: { ...faultRuntimeEnv(sim), ...env },
    log,
    port: 0,
    retryBaseMs: 5,
    // Far beyond any answer of the simulator, however loaded the machine, yet within the test: a
    // response lost on the way is then a timeout (a transient fault), not a batch held for minutes.
    requestTimeoutMs: 60_000,
    ...rest,
    onOutcome: (message, outcome) => {
      outcomes.push({ message, outcome });
      for (const w of watchers.filter((x) => x.n === outcomes.length)) w.fire();
    },
  });
  return {
    rt,
    log,
    outcomes,
    atOutcome: (n, at) =>
      new Promise((resolve, reject) =>
        watchers.push({
          n,
          fire: () => {
            try {
              resolve(at());
            } catch (err) {
              reject(err as Error);
            }
          },
        }),
      ),
    deliver: async (run, guid, times = 1) => {
      const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id, run.installationId), guid);
      const answers = await Promise.all(
        Array.from({ length: times }, () =>
          post(`${rt.url}/webhook`, d).then(
            (a) => a.status,
            () => 0,
          ),
        ),
      );
      return answers;
    },
    close: () => rt.close(),
  };
}

export interface Audit {
  readonly runs: number;
  readonly earned: number;
  /** Re-runs GitHub accepted. */
  readonly rerunsMade: number;
  /** Every re-run POST GitHub received, accepted or refused. */
  readonly rerunRequests: number;
  /** Runs asked to re-run again after GitHub had accepted a re-run (refused or not). */
  readonly duplicates: number;
  /** Runs that earned a re-run and got none accepted. */
  readonly lost: number;
  /** Runs that did not earn a re-run and were sent a re-run request all the same. */
  readonly spurious: number;
  /** Runs whose recorded decision differs from the right one, with what was recorded. */
  readonly wrong: { id: number; kind: RunKind; expected: DecisionKind; recorded: string }[];
  /** Runs with no recorded decision at all. */
  readonly undecided: number[];
}

/**
 * Counts from every re-run request GitHub received (accepted or refused: a repeated
 * `rerun-failed-jobs` is refused 403, so counting only accepted re-runs would hide it) and
 * from what the ledger recorded.
 */
export async function audit(sim: GitHubSimulator, rt: Runtime, runs: readonly PlannedRun[]): Promise<Audit> {
  const tallies = tallyReruns(sim.rerunRequests);
  let duplicates = 0;
  let lost = 0;
  let spurious = 0;
  let rerunsMade = 0;
  let rerunRequests = 0;
  const wrong: Audit['wrong'] = [];
  const undecided: number[] = [];
  for (const run of runs) {
    const t = tallies.get(run.id) ?? NO_RERUNS;
    rerunsMade += t.accepted;
    rerunRequests += t.received;
    if (t.repeats > 0) duplicates++;
    if (run.earnsRerun && t.accepted === 0) lost++;
    if (!run.earnsRerun && t.received > 0) spurious++;
    const record = await rt.ledger.attempts.get(run.repoId, run.id, 1);
    if (record?.state !== 'decided') undecided.push(run.id);
    else if (record.decision !== run.expected) {
      wrong.push({ id: run.id, kind: run.kind, expected: run.expected, recorded: String(record.decision) });
    }
  }
  return {
    runs: runs.length,
    earned: runs.filter((r) => r.earnsRerun).length,
    rerunsMade,
    rerunRequests,
    duplicates,
    lost,
    spurious,
    wrong,
    undecided,
  };
}

export interface Settled {
  /** Dead letters moved back to the queue. */
  readonly redriven: number;
  readonly sweeps: readonly SweepCounts[];
}

/**
 * Settles everything the way production does: the worker drains the queue, an operator
 * redrives the dead letters, and while attempts stay undecided the reconciler sweeps once
 * their claims' lease ran out, as its schedule would. Sweeps run only with the poller
 * stopped, so they never meet a claim that is still being worked on.
 */
export async function settle(
  sim: GitHubSimulator,
  f: FaultRuntime,
  runs: readonly PlannedRun[],
  opts: { leaseMs: number; rounds?: number; drainMs?: number; budgetMs?: number },
): Promise<Settled> {
  let redriven = 0;
  const sweeps: SweepCounts[] = [];
  // Within the test's own timeout, so what is left undecided is reported, not a bare timeout.
  const deadline = Date.now() + (opts.budgetMs ?? 200_000);
  for (let round = 0; round < (opts.rounds ?? 20) && Date.now() < deadline; round++) {
    f.rt.poller.start();
    try {
      await f.rt.poller.drain(Math.max(1_000, Math.min(opts.drainMs ?? 30_000, deadline - Date.now())));
    } catch (err) {
      // A message backed off for longer than the drain (its backoff doubles with each receive)
      // is still in flight, not lost: the next round waits for it. The audit judges the end.
      if (!/did not drain/.test((err as Error).message)) throw err;
    }
    await f.rt.poller.stop();
    const moved = f.rt.queue.redrive();
    redriven += moved;
    if (moved > 0) continue;
    if ((await audit(sim, f.rt, runs)).undecided.length === 0) break;
    await sleep(opts.leaseMs + 50);
    sweeps.push(await f.rt.reconciler.sweep());
  }
  return { redriven, sweeps };
}

/** What the ledger and the queue hold for runs left undecided: the message of a failed audit. */
export async function undecidedDetail(
  rt: Runtime,
  runs: readonly PlannedRun[],
  ids: readonly number[],
): Promise<string> {
  const left = runs.filter((r) => ids.includes(r.id));
  const records = await Promise.all(left.map((r) => rt.ledger.attempts.get(r.repoId, r.id, 1)));
  return JSON.stringify({ queue: rt.queue.stats(), records: records.slice(0, 5) });
}

/** The sweeps' work, summed for a summary line. */
export const sweepFigures = (sweeps: readonly SweepCounts[]): Record<string, number> => ({
  'reconciler sweeps': sweeps.length,
  'orphans released': sweeps.reduce((n, s) => n + s.orphansReleased, 0),
  'orphans recorded retried': sweeps.reduce((n, s) => n + s.orphansRecorded, 0),
  'deliveries redelivered': sweeps.reduce((n, s) => n + s.redelivered, 0),
});

/** One line per suite, the figures docs/reliability.md quotes. */
export function printSummary(suite: string, figures: Record<string, number | string>): string {
  const line = `[reliability] ${suite}: ${Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')}`;
  console.log(line);
  return line;
}

/** Per-status conditional rates so that, taken in order, each fault hits its share of all requests. */
export function conditionalRates(shares: readonly number[]): number[] {
  let left = 1;
  return shares.map((share) => {
    const rate = share / left;
    left -= share;
    return rate;
  });
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
