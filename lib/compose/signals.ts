import type { ScopedSecret } from '../config/signal-scope.js';
import type { SignalIntakeSettings, SignalSettings } from '../config/signal-settings.js';
import { httpLambda } from '../http/lambda-http.js';
import { createEc2SignalHandler } from '../intake/record-ec2-signal.js';
import { createSignalIntake } from '../intake/signal-intake.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { DescribeInstance } from '../signals/runner-identities.js';
import { type EksAccessPorts, eksClusterTargets } from '../signals/eks-access.js';
import { eksRunnerPods, type PodListingFailure } from '../signals/eks-runner-pods.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RunQueue } from '../queue/run-queue.js';

/*
 * The two signal recorders. Kept apart from the worker's and the intake's assembly so their
 * bundles never pull in the GitHub client or the YAML parser.
 */

/** What `POST /signals` is assembled from: the ledger, the scoped secrets, telemetry and the queue for early recovery. */
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

/** What the EC2 signal recorder is assembled from: the ledger, how instances and EKS clusters are read, the queue. */
export interface Ec2SignalParts {
  /** The process's ledger: the signal and job stores come from it. */
  readonly ledger: Ledger;
  /** DescribeInstances, for the tags and the node name that name an instance's runners. */
  readonly describe: DescribeInstance;
  /** How the configured EKS clusters are reached: DescribeCluster and the role deployed, the given files locally. */
  readonly eks?: EksAccessPorts;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** The work queue, where early recovery's requests go; none sent when absent. */
  readonly queue?: RunQueue;
}

/** The EC2 signal's recorder: an EventBridge event in, what it recorded out. */
export type Ec2SignalRecorder = ReturnType<typeof createEc2SignalHandler>;

/** How long one request to a cluster's API may take. */
export const KUBE_REQUEST_TIMEOUT_MS = 3000;
/** How long one cluster may take in all: the records and the answer still fit the function's 10 s. */
export const KUBE_CLUSTER_BUDGET_MS = 6000;

/** The EventBridge target of the `aws.ec2` rules: records each interruption under its runners' keys. */
export function composeEc2SignalRecorder(
  settings: Pick<SignalSettings, 'ttlSeconds' | 'tagKeys'> & Partial<Pick<SignalSettings, 'eksClusters'>>,
  parts: Ec2SignalParts,
): ReturnType<typeof createEc2SignalHandler> {
  const clusters = settings.eksClusters ?? [];
  const runnerPods =
    clusters.length > 0 && parts.eks
      ? eksRunnerPods({
          clusters: eksClusterTargets(clusters, parts.eks),
          log: parts.log,
          metrics: parts.metrics,
          timeoutMs: KUBE_REQUEST_TIMEOUT_MS,
          budgetMs: KUBE_CLUSTER_BUDGET_MS,
          // Each cluster's last outcome, for `reprise status`.
          onOutcome: (cluster: string, failure: PodListingFailure | undefined) =>
            parts.ledger.eksListings.record(cluster, failure),
        })
      : undefined;
  return createEc2SignalHandler({
    ...(runnerPods && { runnerPods }),
    store: parts.ledger.runnerSignals(settings.ttlSeconds),
    jobs: parts.ledger.runnerJobs(),
    describe: parts.describe,
    tagKeys: settings.tagKeys,
    log: parts.log,
    metrics: parts.metrics,
    ...(parts.queue && { recovery: { queue: parts.queue, log: parts.log, metrics: parts.metrics } }),
  });
}
