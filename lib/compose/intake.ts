import type { IntakeSettings } from '../config/function-settings.js';
import type { EventPublisher } from '../events/types.js';
import { httpLambda } from '../http/lambda-http.js';
import { createIntake } from '../intake/webhook-intake.js';
import type { IntakeLedger } from '../ledger/ledger.js';
import type { Log, MetricSink } from '../obs/types.js';
import { RunnerKeys } from '../signals/runner-keys.js';
import type { RunQueue } from '../queue/run-queue.js';

/** What the intake is assembled from, beside its settings: the process's queue, secrets, ledger and telemetry. */
export interface IntakeParts {
  /** Where completed red runs go: the worker's queue. */
  readonly queue: RunQueue;
  /** The current webhook secret first, then the previous one during a rotation. */
  readonly secrets: () => Promise<readonly string[]>;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** The process's ledger (or the intake's part of it): every store the intake writes comes from it. */
  readonly ledger: IntakeLedger;
  /** The intake's clock (the ledger's stores keep the ledger's own); Date.now when absent. */
  readonly now?: () => number;
  /** Where a recorded `recovered` outcome is published; nothing published when absent. */
  readonly events?: EventPublisher;
}

/** `POST /webhook` from the intake's settings: one assembly for the function and the local runtime. */
export function composeIntake(settings: IntakeSettings, parts: IntakeParts): ReturnType<typeof httpLambda> {
  const { ledger, now } = parts;
  return httpLambda(
    createIntake({
      secrets: parts.secrets,
      deliveries: ledger.deliveries,
      jobs: ledger.runnerJobs(),
      runnerKeys: new RunnerKeys(settings.runnerNamePatterns),
      queuedJobs: ledger.queuedJobs,
      outcomes: ledger.outcomes(settings.breaker),
      branchRuns: ledger.branchRuns,
      recoveries: ledger.recoveries,
      queue: parts.queue,
      ...(parts.events && { events: parts.events }),
      ...(now && { now }),
      log: parts.log,
      metrics: parts.metrics,
    }),
  );
}
