import type { ReconcilerSettings } from '../config/env.js';
import type { EventPublisher } from '../events/types.js';
import type { AppClient, GitHubClients } from '../github/client.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Log, MetricSink } from '../obs/types.js';
import { limitsFrom, Reconciler } from '../reconcile/reconciler.js';
import { startSweepTimer, type SweepTimer } from '../reconcile/timer.js';
import type { RunQueue } from '../queue/run-queue.js';

/** What the reconciler is assembled from, beside its settings: the queue it sends to, the GitHub clients it reads with, the ledger. */
export interface ReconcilerParts {
  /** The worker's queue, where released and recovered run attempts go. */
  readonly queue: RunQueue;
  /** Installation clients, to read runs. */
  readonly client: (installationId: number | null) => GitHubClients;
  /** The App's own client; without one (token credentials) missed deliveries are not swept. */
  readonly appClient?: AppClient;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** The process's ledger: every store the sweep reads and writes comes from it. */
  readonly ledger: Ledger;
  /** The sweep's clock (the reconciler's own store is on it); Date.now when absent. */
  readonly now?: () => number;
  /** Where re-run outcomes and stuck-queued jobs are published; nothing published when absent. */
  readonly events?: EventPublisher;
}

/** The reconciler from the deployment's settings: one assembly for the scheduled function and the local timer. */
export function composeReconciler(settings: ReconcilerSettings, parts: ReconcilerParts): Reconciler {
  const { ledger, now } = parts;
  return new Reconciler({
    ledger,
    client: parts.client,
    graphqlUrl: settings.graphqlUrl,
    apiUrl: settings.apiUrl,
    ...(parts.appClient && { appClient: parts.appClient }),
    queue: parts.queue,
    outcomes: ledger.outcomes(settings.breaker),
    stuck: {
      queuedJobs: ledger.queuedJobs,
      defaults: settings.defaults,
      pacing: ledger.pacing(settings.pace),
    },
    ...(parts.events && { events: parts.events }),
    ...(now && { now }),
    log: parts.log,
    metrics: parts.metrics,
    limits: limitsFrom(settings.reconcile),
  });
}

/**
 * The local runtime's schedule: a sweep every `reconcile.intervalSeconds`, as the deployed rule
 * invokes the function; none when the interval is 0.
 */
export function startReconcilerTimer(
  settings: ReconcilerSettings,
  reconciler: Reconciler,
  log: Log,
): SweepTimer | undefined {
  const { intervalSeconds } = settings.reconcile;
  return intervalSeconds > 0 ? startSweepTimer(reconciler, intervalSeconds * 1000, log) : undefined;
}

export type { Reconciler };
