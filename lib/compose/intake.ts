import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { IntakeSettings } from '../config/function-settings.js';
import type { EventPublisher } from '../events/types.js';
import { httpLambda } from '../http/lambda-http.js';
import { createIntake } from '../intake/webhook-intake.js';
import { type Ledger, openLedger } from '../ledger/ledger.js';
import { TableBranchRuns } from '../ledger/branch-runs.js';
import { TableRerunOutcomes } from '../ledger/outcomes.js';
import { TableQueuedJobs } from '../ledger/queued-jobs.js';
import type { Log, MetricSink } from '../obs/types.js';
import { TableRunnerJobs } from '../ledger/runner-jobs.js';
import { RunnerKeys } from '../signals/runner-keys.js';
import type { RunQueue } from '../webhook/run-queue.js';

export interface IntakeParts {
  readonly dynamo: DynamoDBClient;
  readonly table: string;
  /** Where completed red runs go: the worker's queue. */
  readonly queue: RunQueue;
  /** The current webhook secret first, then the previous one during a rotation. */
  readonly secrets: () => Promise<readonly string[]>;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** A ledger shared with other parts of the process (the deliveries seen); one on `now` is made when absent. */
  readonly ledger?: Pick<Ledger, 'deliveries'>;
  /** The clock of the intake and of every store it writes; Date.now when absent. */
  readonly now?: () => number;
  /** Where a recorded `recovered` outcome is published; nothing published when absent. */
  readonly events?: EventPublisher;
}

/** `POST /webhook` from the intake's settings: one assembly for the function and the local runtime. */
export function composeIntake(settings: IntakeSettings, parts: IntakeParts): ReturnType<typeof httpLambda> {
  const { dynamo, table, now } = parts;
  return httpLambda(
    createIntake({
      secrets: parts.secrets,
      deliveries: (parts.ledger ?? openLedger(dynamo, table, now)).deliveries,
      jobs: new TableRunnerJobs(dynamo, table, now, new RunnerKeys(settings.runnerNamePatterns)),
      queuedJobs: new TableQueuedJobs(dynamo, table, now),
      outcomes: new TableRerunOutcomes(dynamo, table, settings.breaker, now),
      branchRuns: new TableBranchRuns(dynamo, table, now),
      queue: parts.queue,
      ...(parts.events && { events: parts.events }),
      ...(now && { now }),
      log: parts.log,
      metrics: parts.metrics,
    }),
  );
}
