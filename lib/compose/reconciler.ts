import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ReconcilerSettings } from '../config/env.js';
import type { EventPublisher } from '../events/types.js';
import type { AppClient, GitHubClients } from '../github/client.js';
import { openLedger } from '../ledger/ledger.js';
import { TableRerunOutcomes } from '../ledger/outcomes.js';
import { TablePacing } from '../ledger/pacing.js';
import { TableQueuedJobs } from '../ledger/queued-jobs.js';
import type { Log, MetricSink } from '../obs/types.js';
import { limitsFrom, type ReconcileLedger, Reconciler } from '../reconcile/reconciler.js';
import type { RunQueue } from '../webhook/run-queue.js';

export interface ReconcilerParts {
  readonly dynamo: DynamoDBClient;
  readonly table: string;
  /** The worker's queue, where released and recovered run attempts go. */
  readonly queue: RunQueue;
  /** Installation clients, to read runs. */
  readonly client: (installationId: number | null) => GitHubClients;
  /** The App's own client; without one (token credentials) missed deliveries are not swept. */
  readonly appClient?: AppClient;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** A ledger shared with other parts of the process; one on `now` is made when absent. */
  readonly ledger?: ReconcileLedger;
  /** The clock of the sweep and of every store it writes; Date.now when absent. */
  readonly now?: () => number;
  /** Where re-run outcomes and stuck-queued jobs are published; nothing published when absent. */
  readonly events?: EventPublisher;
}

/** The reconciler from the deployment's settings: one assembly for the scheduled function and the local timer. */
export function composeReconciler(settings: ReconcilerSettings, parts: ReconcilerParts): Reconciler {
  const { dynamo, table, now } = parts;
  return new Reconciler({
    ledger: parts.ledger ?? openLedger(dynamo, table, now),
    client: parts.client,
    graphqlUrl: settings.graphqlUrl,
    apiUrl: settings.apiUrl,
    ...(parts.appClient && { appClient: parts.appClient }),
    queue: parts.queue,
    outcomes: new TableRerunOutcomes(dynamo, table, settings.breaker, now),
    stuck: {
      queuedJobs: new TableQueuedJobs(dynamo, table, now),
      defaults: settings.defaults,
      pacing: new TablePacing(dynamo, table, settings.pace, now),
    },
    ...(parts.events && { events: parts.events }),
    ...(now && { now }),
    log: parts.log,
    metrics: parts.metrics,
    limits: limitsFrom(settings.reconcile),
  });
}
