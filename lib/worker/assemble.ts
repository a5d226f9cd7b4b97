import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { WorkerSettings } from '../config/env.js';
import type { GitHubClients } from '../github/client.js';
import { NO_EVENTS } from '../events/build.js';
import { RepoConfigSource } from '../github/repo-config-source.js';
import { DynamoRetryBudget } from '../ledger/budget.js';
import { DynamoPacing } from '../ledger/pacing.js';
import type { Ledger } from '../ledger/ledger.js';
import { DynamoRerunOutcomes } from '../ledger/outcomes.js';
import type { Log, MetricSink } from '../obs/types.js';
import { RunnerKeys } from '../signals/runner-keys.js';
import { SignalStore } from '../signals/signal-store.js';
import { INLINE_TURN_WAIT_MS } from './turn.js';
import type { WorkerDeps } from './worker-deps.js';
import type { EventPublisher } from '../events/types.js';

export interface WorkerParts {
  readonly dynamo: DynamoDBClient;
  readonly table: string;
  readonly ledger: Ledger;
  readonly client: (installationId: number | null) => GitHubClients;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Identifies this worker's claims. */
  readonly owner: string;
  readonly leaseMs: number;
  /** A store shared with other parts of the process; one is made when absent. */
  readonly signals?: SignalStore;
  /** The clock of the pace, the ledger, the breaker and its outcomes (tests move it); Date.now when absent. */
  readonly now?: () => number;
  /** Where decisions and re-run outcomes are published; nothing published when absent. */
  readonly events?: EventPublisher;
}

/** The worker's dependencies from the deployment's settings: one assembly for Lambda and the local runtime. */
export function workerDeps(settings: WorkerSettings, parts: WorkerParts): WorkerDeps {
  const outcomes = new DynamoRerunOutcomes(parts.dynamo, parts.table, settings.breaker, parts.now);
  return {
    ledger: parts.ledger,
    client: parts.client,
    graphqlUrl: settings.graphqlUrl,
    configSource: new RepoConfigSource(),
    defaults: settings.defaults,
    signals:
      parts.signals ??
      new SignalStore(
        parts.dynamo,
        parts.table,
        settings.signalTtlSeconds,
        undefined,
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
    leaseMs: parts.leaseMs,
  };
}
