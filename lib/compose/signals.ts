import type { ScopedSecret } from '../config/signal-scope.js';
import type { SignalIntakeSettings, SignalSettings } from '../config/signal-settings.js';
import { httpLambda } from '../http/lambda-http.js';
import { createEc2SignalHandler } from '../intake/record-ec2-signal.js';
import { createSignalIntake } from '../intake/signal-intake.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { DescribeInstance } from '../signals/runner-identities.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RunQueue } from '../queue/run-queue.js';

/*
 * The two signal recorders. Kept apart from the worker's and the intake's assembly so their
 * bundles never pull in the GitHub client or the YAML parser.
 */

export interface SignalIntakeParts {
  /** The process's ledger: the signal store comes from it. */
  readonly ledger: Ledger;
  /** The current signal secret first, then the previous one during a rotation, each with its scope; none refuses every post. */
  readonly secrets: () => Promise<readonly ScopedSecret[]>;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** The work queue, where early recovery's requests go; none sent when absent. */
  readonly queue?: RunQueue;
}

/** `POST /signals` from agents: one assembly for the function and the local runtime. */
export function composeSignalIntake(
  settings: Pick<SignalIntakeSettings, 'ttlSeconds' | 'toleranceMs'>,
  parts: SignalIntakeParts,
): ReturnType<typeof httpLambda> {
  return httpLambda(
    createSignalIntake({
      secrets: parts.secrets,
      store: parts.ledger.runnerSignals(settings.ttlSeconds),
      log: parts.log,
      metrics: parts.metrics,
      toleranceMs: settings.toleranceMs,
      ...recoveryParts(parts),
    }),
  );
}

/** The job store and the queue that early recovery's requests need, when a queue is given. */
const recoveryParts = (parts: { ledger: Ledger; queue?: RunQueue; log: Log; metrics: MetricSink }) =>
  parts.queue
    ? {
        jobs: parts.ledger.runnerJobs(),
        recovery: { queue: parts.queue, log: parts.log, metrics: parts.metrics },
      }
    : {};

export interface Ec2SignalParts {
  /** The process's ledger: the signal and job stores come from it. */
  readonly ledger: Ledger;
  /** DescribeInstances, for the tags and the node name that name an instance's runners. */
  readonly describe: DescribeInstance;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** The work queue, where early recovery's requests go; none sent when absent. */
  readonly queue?: RunQueue;
}

/** The EventBridge target of the `aws.ec2` rules: records each interruption under its runners' keys. */
export function composeEc2SignalRecorder(
  settings: Pick<SignalSettings, 'ttlSeconds' | 'tagKeys'>,
  parts: Ec2SignalParts,
): ReturnType<typeof createEc2SignalHandler> {
  return createEc2SignalHandler({
    store: parts.ledger.runnerSignals(settings.ttlSeconds),
    jobs: parts.ledger.runnerJobs(),
    describe: parts.describe,
    tagKeys: settings.tagKeys,
    log: parts.log,
    metrics: parts.metrics,
    ...(parts.queue && { recovery: { queue: parts.queue, log: parts.log, metrics: parts.metrics } }),
  });
}
