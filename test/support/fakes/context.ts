/**
 * A worker's context on in-memory stores and a hand-moved clock, for tests of one stage at a
 * time. GitHub is a stand-in that answers only the reads a test gives it and fails on any other.
 */
import { noDeliveryLog } from '../../../lib/decide/delivery-gap.js';
import { BUILT_IN_DEFAULTS, type RepoConfig } from '../../../lib/config/repo-config.js';
import type { RepoApi } from '../../../lib/github/repo-api.js';
import type { Pause } from '../../../lib/ledger/pauses.js';
import { MemoryMetrics } from '../../../lib/obs/memory-metrics.js';
import type { DecisionSettings, WorkerContext } from '../../../lib/worker/context.js';
import { MemoryLog } from '../memory-log.js';
import { VirtualClock } from '../virtual-clock.js';
import { MemoryAttempts } from './attempts.js';
import { MemoryRecoveries } from './recoveries.js';
import { MemoryBudget, MemoryEvents, MemoryOutcomes, MemoryPacing, MemoryRequeues, MemorySignals } from './counters.js';

export interface FakeWorld {
  readonly clock: VirtualClock;
  readonly attempts: MemoryAttempts;
  readonly budget: MemoryBudget;
  readonly pacing: MemoryPacing;
  readonly outcomes: MemoryOutcomes;
  readonly requeues: MemoryRequeues;
  readonly events: MemoryEvents;
  readonly log: MemoryLog;
  readonly metrics: MemoryMetrics;
  readonly ctx: WorkerContext;
  /** The operator's pause every repository reads (none unless a test sets one). */
  readonly pauses: { held: Pause | undefined };
  /** The same context under another owner: a second worker on the same stores. */
  as(owner: string): WorkerContext;
}

export interface WorldOptions extends Partial<Omit<DecisionSettings, 'defaults'>> {
  /** Units of the retry budget an hour; 0, no limit. */
  readonly budgetPerHour?: number;
  readonly spacingMs?: number;
  readonly defaults?: Partial<RepoConfig>;
  /** Where the clock starts (epoch ms). */
  readonly startMs?: number;
}

export function fakeWorld(o: WorldOptions = {}): FakeWorld {
  const clock = new VirtualClock();
  clock.advance(o.startMs ?? Date.parse('2026-10-02T16:30:00Z'));
  const now = clock.now;
  const attempts = new MemoryAttempts(now);
  const budget = new MemoryBudget(o.budgetPerHour ?? 0, now);
  const pacing = new MemoryPacing(o.spacingMs ?? 350, now);
  const outcomes = new MemoryOutcomes(attempts, now);
  const requeues = new MemoryRequeues();
  const events = new MemoryEvents();
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  const pauses: { held: Pause | undefined } = { held: undefined };
  const { budgetPerHour: _b, spacingMs: _s, defaults, startMs: _t, ...settings } = o;
  const ctx: WorkerContext = {
    stores: {
      attempts,
      requeues,
      budget,
      pacing,
      outcomes,
      signals: new MemorySignals(),
      // No run is recorded: a branch run's staleness is listed.
      branchRuns: { newest: () => Promise.resolve(undefined) },
      recoveries: new MemoryRecoveries(),
      repoConfig: {
        load: () => Promise.reject(new Error('the repository configuration is not read in this test')),
      },
      pauses: { active: () => Promise.resolve(pauses.held) },
    },
    github: {
      client: () => {
        throw new Error('GitHub is not called in this test');
      },
      graphqlUrl: 'https://api.github.invalid/graphql',
      deliveryLog: noDeliveryLog,
    },
    settings: {
      defaults: { ...BUILT_IN_DEFAULTS, ...defaults },
      signalWindow: { beforeMs: 300_000, afterMs: 120_000 },
      logHosts: [],
      logWindowBytes: 1024,
      repositoryAllowList: null,
      maxWaitMs: 3_600_000,
      // Repositories do not take turns unless a test asks for it.
      repositoryShare: 1,
      // The clock is moved by hand: nothing is slept on unless a test asks for it.
      inlineTurnWaitMs: 0,
      leaseMs: 60_000,
      ...settings,
    },
    obs: { log, metrics, events },
    clock: now,
    owner: 'worker-a',
  };
  return {
    clock,
    attempts,
    budget,
    pacing,
    outcomes,
    requeues,
    events,
    log,
    metrics,
    ctx,
    pauses,
    as: (owner) => ({ ...ctx, owner }),
  };
}

/**
 * A stand-in for a repository's GitHub reads: each given read answers and counts as one request;
 * any other call fails the test, so a stage is held to the reads it is meant to make.
 */
export function fakeRepoApi(reads: Partial<Record<keyof RepoApi, (...args: never[]) => unknown>>): RepoApi & {
  /** The reads sent, in order. */
  readonly readsSent: string[];
} {
  const calls: string[] = [];
  return new Proxy({} as RepoApi & { readsSent: string[] }, {
    get(_target, name) {
      if (name === 'requests') return calls.length;
      if (name === 'readsSent') return calls;
      if (name === 'then') return undefined;
      const read = reads[name as keyof RepoApi];
      if (!read) return () => Promise.reject(new Error(`unexpected GitHub call: ${String(name)}`));
      return (...args: never[]) => {
        calls.push(String(name));
        return read(...args);
      };
    },
  });
}
