import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import type { WorkerSettings } from '../config/env.js';
import { NO_EVENTS } from '../events/build.js';
import type { EventPublisher } from '../events/types.js';
import type { GitHubClients } from '../github/client.js';
import { RepoConfigSource } from '../github/repo-config-source.js';
import { DynamoRetryBudget } from '../ledger/budget.js';
import { type Ledger, openLedger } from '../ledger/ledger.js';
import { DynamoRerunOutcomes } from '../ledger/outcomes.js';
import { DynamoPacing } from '../ledger/pacing.js';
import type { RunMessage } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import { RunnerKeys } from '../signals/runner-keys.js';
import { RunnerSignals, type RunnerSignalStore } from '../ledger/runner-signals.js';
import { createWorkerHandler } from '../worker/handler.js';
import { INLINE_TURN_WAIT_MS } from '../worker/turn.js';
import type { RunOutcome, WorkerDeps } from '../worker/worker-deps.js';

/** How long a worker's claim on a run attempt lasts before the reconciler may take it back. */
const DEFAULT_LEASE_MS = 5 * 60_000;

export interface WorkerParts {
  readonly dynamo: DynamoDBClient;
  readonly table: string;
  readonly client: (installationId: number | null) => GitHubClients;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Identifies this worker's claims. */
  readonly owner: string;
  /**
   * How long a claim on a run attempt lasts before the reconciler may take it back.
   * @default 5 minutes
   */
  readonly leaseMs?: number;
  /** A ledger shared with other parts of the process; one on `now` is made when absent. */
  readonly ledger?: Ledger;
  /** A signal store shared with other parts of the process; one is made when absent. */
  readonly signals?: RunnerSignalStore;
  /** The clock of the pace, the ledger, the breaker and its outcomes (tests move it); Date.now when absent. */
  readonly now?: () => number;
  /** Where decisions and re-run outcomes are published; nothing published when absent. */
  readonly events?: EventPublisher;
}

/** The worker's dependencies from the deployment's settings: one assembly for Lambda and the local runtime. */
export function workerDeps(settings: WorkerSettings, parts: WorkerParts): WorkerDeps {
  const outcomes = new DynamoRerunOutcomes(parts.dynamo, parts.table, settings.breaker, parts.now);
  return {
    ledger: parts.ledger ?? openLedger(parts.dynamo, parts.table, parts.now),
    client: parts.client,
    graphqlUrl: settings.graphqlUrl,
    configSource: new RepoConfigSource(),
    defaults: settings.defaults,
    signals:
      parts.signals ??
      new RunnerSignals(
        parts.dynamo,
        parts.table,
        settings.signalTtlSeconds,
        parts.now,
        new RunnerKeys(settings.runnerNamePatterns),
      ),
    signalWindow: settings.signalWindow,
    logHosts: settings.logHosts,
    logWindowBytes: settings.logWindowBytes,
    repositoryAllowList: settings.repositoryAllowList ?? null,
    budget: new DynamoRetryBudget(parts.dynamo, parts.table, settings.retryBudgetPerHour, parts.now),
    pacing: new DynamoPacing(parts.dynamo, parts.table, settings.pace, parts.now),
    maxWaitMs: settings.pace.maxWaitMs,
    // A hand-moved clock cannot be slept on: its turns are all deferrals.
    inlineTurnWaitMs: parts.now ? 0 : INLINE_TURN_WAIT_MS,
    now: parts.now ?? Date.now,
    outcomes,
    breaker: outcomes,
    events: parts.events ?? NO_EVENTS,
    log: parts.log,
    metrics: parts.metrics,
    owner: parts.owner,
    leaseMs: parts.leaseMs ?? DEFAULT_LEASE_MS,
  };
}

/** What the worker's process adds to its parts: the queue it reads from. */
export interface WorkerProcessParts extends WorkerParts {
  /** Hides a message for `seconds` (SQS ChangeMessageVisibility, or the embedded queue's). */
  readonly defer: (record: SQSRecord, seconds: number) => Promise<void>;
  /** The queue's redrive limit; the setting (MAX_RECEIVE_COUNT) when absent. */
  readonly maxReceiveCount?: number;
  readonly onOutcome?: (message: RunMessage, outcome: RunOutcome) => void;
}

/** The worker's SQS batch handler, as Lambda and the local runtime's poller call it. */
export function composeWorker(
  settings: WorkerSettings,
  parts: WorkerProcessParts,
): ReturnType<typeof createWorkerHandler> {
  const { defer, maxReceiveCount, onOutcome, ...rest } = parts;
  return createWorkerHandler({
    ...workerDeps(settings, rest),
    maxReceiveCount: maxReceiveCount ?? settings.maxReceiveCount,
    defer,
    ...(onOutcome && { onOutcome }),
  });
}
