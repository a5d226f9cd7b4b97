import type { SQSRecord } from 'aws-lambda';
import { noDeliveryLog } from '../decide/delivery-gap.js';
import type { WorkerSettings } from '../config/env.js';
import { NO_EVENTS } from '../events/build.js';
import type { EventPublisher } from '../events/types.js';
import type { AppClient, GitHubClients } from '../github/client.js';
import { readDeliveryGap } from '../github/hook-deliveries.js';
import { RepoConfigSource } from '../github/repo-config-source.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RunMessage } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import { RunnerKeys } from '../signals/runner-keys.js';
import { runnerSignalLookup } from '../signals/runner-lookup.js';
import type { RunnerSignals } from '../ledger/runner-signals.js';
import { createWorkerHandler } from '../worker/handler.js';
import type { WorkerContext } from '../worker/context.js';
import type { RunOutcome } from '../worker/result.js';
import { INLINE_TURN_WAIT_MS } from '../worker/turn.js';

/** How long a worker's claim on a run attempt lasts before the reconciler may take it back. */
export const DEFAULT_LEASE_MS = 5 * 60_000;

/** What the worker is assembled from, beside its settings: clients, ledger, claim owner and lease, telemetry. */
export interface WorkerParts {
  readonly client: (installationId: number | null) => GitHubClients;
  /** The App's own client, for its webhook's delivery log; none under GITHUB_TOKEN. */
  readonly appClient?: AppClient;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Identifies this worker's claims. */
  readonly owner: string;
  /**
   * How long a claim on a run attempt lasts before the reconciler may take it back.
   * @default 5 minutes
   */
  readonly leaseMs?: number;
  /** The process's ledger: every store the worker uses comes from it. */
  readonly ledger: Ledger;
  /** A signal store shared with other parts of the process; one is made when absent. */
  readonly signals?: RunnerSignals;
  /** The decision's clock (tests move it; the ledger's stores keep the ledger's own); Date.now when absent. */
  readonly now?: () => number;
  /** Where decisions and re-run outcomes are published; nothing published when absent. */
  readonly events?: EventPublisher;
}

/**
 * The worker's context from the deployment's settings: one assembly for Lambda and the local
 * runtime, every store built and every default applied here, once.
 */
export function workerContext(settings: WorkerSettings, parts: WorkerParts): WorkerContext {
  const { ledger, now } = parts;
  const runnerKeys = new RunnerKeys(settings.runnerNamePatterns);
  return {
    stores: {
      attempts: ledger.attempts,
      requeues: ledger.requeues,
      // One repository's part of the hour is its share of the pace: PACE_REPOSITORY_SHARE_PERCENT.
      budget: ledger.budget(settings.retryBudgetPerHour, settings.pace.repositoryShare),
      pacing: ledger.pacing(settings.pace),
      outcomes: ledger.outcomes(settings.breaker),
      signals: runnerSignalLookup(parts.signals ?? ledger.runnerSignals(settings.signalTtlSeconds), runnerKeys),
      branchRuns: ledger.branchRuns,
      recoveries: ledger.recoveries,
      pauses: ledger.pauses,
      repoConfig: new RepoConfigSource(undefined, undefined, settings.repoCeiling),
    },
    github: {
      client: parts.client,
      graphqlUrl: settings.graphqlUrl,
      deliveryLog: (scope) => {
        const app = parts.appClient;
        return app ? readDeliveryGap(app, scope) : noDeliveryLog();
      },
    },
    settings: {
      defaults: settings.defaults,
      signalWindow: settings.signalWindow,
      logHosts: settings.logHosts,
      logWindowBytes: settings.logWindowBytes,
      repositoryAllowList: settings.repositoryAllowList ?? null,
      maxWaitMs: settings.pace.maxWaitMs,
      repositoryShare: settings.pace.repositoryShare,
      // A hand-moved clock cannot be slept on: its turns are all deferrals.
      inlineTurnWaitMs: now ? 0 : INLINE_TURN_WAIT_MS,
      leaseMs: parts.leaseMs ?? DEFAULT_LEASE_MS,
    },
    obs: { log: parts.log, metrics: parts.metrics, events: parts.events ?? NO_EVENTS },
    clock: now ?? Date.now,
    owner: parts.owner,
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
    ...workerContext(settings, rest),
    maxReceiveCount: maxReceiveCount ?? settings.maxReceiveCount,
    defer,
    ...(onOutcome && { onOutcome }),
  });
}

export type { RunOutcome } from '../worker/result.js';
