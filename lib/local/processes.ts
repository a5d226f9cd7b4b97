/**
 * The local runtime's processes, each assembled by lib/compose exactly as its Lambda function
 * is: the webhook intake, the signal intake, the worker and the reconciler. Here they share one
 * process, so they share its table, its ledger, its queue, its clock and one GitHub client
 * factory (one spacing of an installation's writes).
 */
import { githubAppClient, githubClients, type GitHubTuning } from '../compose/github.js';
import { composeIntake } from '../compose/intake.js';
import { composeReconciler, type Reconciler } from '../compose/reconciler.js';
import { readFile } from 'node:fs/promises';
import { composeEc2SignalRecorder, composeSignalIntake, type Ec2SignalRecorder } from '../compose/signals.js';
import { requireLocalAccess } from '../config/eks-clusters.js';
import type { SignalSettings } from '../config/signal-settings.js';
import type { ScopedSecret } from '../config/signal-scope.js';
import { composeWorker, type RunOutcome } from '../compose/worker.js';
import type { DeploymentSettings } from '../config/env.js';
import type { GitHubCredentials } from '../config/secrets.js';
import type { EventPublisher } from '../events/types.js';
import type { GitHubClients } from '../github/client.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RunMessage } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { DeferringQueue, RunQueue } from '../queue/run-queue.js';
import type { LambdaHttpHandler } from './http-server.js';

/** What the local processes share: settings, credentials, secrets, the ledger, the queue, telemetry and the clock. */
export interface LocalParts {
  readonly settings: DeploymentSettings;
  readonly credentials: GitHubCredentials;
  /** The webhook secrets, current first. */
  readonly webhookSecrets: readonly string[];
  /** The signal secrets, each with whom it speaks for; none refuses every post. */
  readonly signalSecrets: readonly ScopedSecret[];
  /** How far an HMAC-signed post's timestamp may be from now, in ms. */
  readonly signalToleranceMs: number;
  /** The EC2 signal's settings: tag keys and the EKS clusters, each with its endpoint, CA file and token. */
  readonly ec2Signal?: Pick<SignalSettings, 'tagKeys' | 'eksClusters'>;
  readonly ledger: Ledger;
  /** The run queue: the intake, the signal intake and the reconciler send to it, the worker defers on it. */
  readonly queue: RunQueue & DeferringQueue;
  /** Receives the queue allows before it dead-letters a message: the worker's last try is the one before. */
  readonly maxReceiveCount: number;
  /** Identifies this process's claims. */
  readonly owner: string;
  readonly log: Log;
  readonly metrics: MetricSink;
  readonly events?: EventPublisher;
  /** The clock of the intake, the worker, the reconciler and their stores; Date.now when absent. */
  readonly now?: () => number;
  readonly github?: GitHubTuning;
  readonly leaseMs?: number;
  readonly onOutcome?: (message: RunMessage, outcome: RunOutcome) => void;
}

/** The four processes of the deployed stack, assembled on shared parts, and the GitHub clients they share. */
export interface LocalProcesses {
  readonly intake: LambdaHttpHandler;
  readonly signalIntake: LambdaHttpHandler;
  /** The EC2 signal function's recorder, fed by the operator port's `POST /ec2-events`. */
  readonly ec2Signal: Ec2SignalRecorder;
  readonly worker: ReturnType<typeof composeWorker>;
  readonly reconciler: Reconciler;
  /** The installation clients the worker and the reconciler share. */
  readonly client: (installationId: number | null) => GitHubClients;
}

/** Assembles each process through lib/compose, exactly as its Lambda function is assembled. */
export function localProcesses(parts: LocalParts): LocalProcesses {
  const { settings, credentials, ledger, log, metrics, events, now, queue } = parts;
  const shared = { ledger, log, metrics, ...(events && { events }), ...(now && { now }) };
  const client = githubClients(settings, credentials, log, parts.github);
  // One App client (its JWT) for the worker's delivery-log reads and the reconciler's sweeps.
  const appClient = githubAppClient(settings, credentials, log, parts.github);
  // No AWS here: each cluster gives its endpoint, CA and token, and EC2 tells nothing more than the event.
  const ec2 = parts.ec2Signal ?? { tagKeys: [], eksClusters: [] };
  requireLocalAccess(ec2.eksClusters);
  return {
    client,
    intake: composeIntake(settings, {
      ...shared,
      queue,
      secrets: async () => parts.webhookSecrets,
    }),
    signalIntake: composeSignalIntake(
      { ttlSeconds: settings.signalTtlSeconds, toleranceMs: parts.signalToleranceMs },
      { ledger, secrets: async () => parts.signalSecrets, log, metrics, queue },
    ),
    ec2Signal: composeEc2SignalRecorder(
      { ttlSeconds: settings.signalTtlSeconds, ...ec2 },
      {
        ledger,
        describe: async () => ({ tags: {} }),
        eks: { readFile: (path) => readFile(path, 'utf8') },
        log,
        metrics,
      },
    ),
    worker: composeWorker(settings, {
      ...shared,
      client,
      ...(appClient && { appClient }),
      owner: parts.owner,
      ...(parts.leaseMs !== undefined && { leaseMs: parts.leaseMs }),
      maxReceiveCount: parts.maxReceiveCount,
      // The worker defers through the queue's visibility change, as on Lambda.
      defer: (record, seconds) => queue.changeVisibility(record, seconds),
      ...(parts.onOutcome && { onOutcome: parts.onOutcome }),
    }),
    reconciler: composeReconciler(settings, {
      ...shared,
      queue,
      client,
      appClient,
    }),
  };
}
