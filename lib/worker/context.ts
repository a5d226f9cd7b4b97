/**
 * What one decision is given, resolved once where the worker's process is assembled
 * (lib/compose/worker.ts): the stores it reads and writes, GitHub, its settings, its outputs,
 * the clock and who it is. Nothing in it is optional. Each stage takes only the slice it uses.
 */
import type { RepoConfig } from '../config/repo-config.js';
import type { EventPublisher } from '../events/types.js';
import type { GitHubClients } from '../github/client.js';
import type { DeliveryGap, GapScope } from '../decide/delivery-gap.js';
import type { RepoConfigSource } from '../github/repo-config-source.js';
import type { BranchRuns } from '../ledger/branch-runs.js';
import type { RetryBudget } from '../ledger/budget.js';
import type { RerunOutcomes } from '../ledger/outcomes.js';
import type { Pacing } from '../ledger/pacing.js';
import type { Pauses } from '../ledger/pauses.js';
import type { Requeues } from '../ledger/requeues.js';
import type { RunAttempts } from '../ledger/run-attempts.js';
import type { RunnerSignalLookup } from '../signals/runner-lookup.js';
import type { RunRecoveries } from '../ledger/run-recoveries.js';
import type { RunMessage, SignalWindow } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';

/** The ledger's stores and the caches a decision reads and writes, each behind its own port. */
export interface WorkerStores {
  /** Run attempts from claim to decision. */
  readonly attempts: RunAttempts;
  /** The merge-queue loop guard. */
  readonly requeues: Requeues;
  /** The installation's retry budget (a ceiling; no limit when its setting is 0). */
  readonly budget: RetryBudget;
  /** The installation's shared pace of re-runs and reports. */
  readonly pacing: Pacing;
  /** Where the outcome of each re-run attempt is recorded, and the breaker those outcomes drive. */
  readonly outcomes: RerunOutcomes;
  /** Interruption records of runners, looked up around each job's completion. */
  readonly signals: RunnerSignalLookup;
  /** The newest run of each workflow on each branch, as the intake recorded it. */
  readonly branchRuns: Pick<BranchRuns, 'newest'>;
  /** Each repository's `.github/reprise.yml`, with its absence remembered a while. */
  readonly repoConfig: Pick<RepoConfigSource, 'load'>;
  /** Early recovery's ends of run attempts and runs waiting for their healthy jobs. */
  readonly recoveries: RunRecoveries;
  /** The operator's pauses (`reprise pause`), read before each re-run. */
  readonly pauses: Pick<Pauses, 'active'>;
}

/** How a decision reaches GitHub: an installation's clients, and the GraphQL endpoint (GHES or github.com). */
export interface WorkerGitHub {
  readonly client: (installationId: number | null) => GitHubClients;
  readonly graphqlUrl: string;
  /** Reads the App's webhook delivery log since a run started; `no_log` under GITHUB_TOKEN (no App, no log). */
  readonly deliveryLog: (scope: GapScope) => Promise<DeliveryGap>;
}

/** The settings one decision reads, every default already applied. */
export interface DecisionSettings {
  /** The deployment's defaults, which a repository's file overrides. */
  readonly defaults: RepoConfig;
  readonly signalWindow: SignalWindow;
  /** Hosts a job log's redirect may lead to. */
  readonly logHosts: readonly string[];
  readonly logWindowBytes: number;
  /** When not null, only these `owner/name` repositories are ever re-run. */
  readonly repositoryAllowList: readonly string[] | null;
  /** How long a run may wait for its pace slot before it is expired. */
  readonly maxWaitMs: number;
  /**
   * One repository's share of the retry budget (PACE_REPOSITORY_SHARE_PERCENT); below 1, repositories
   * also take turns in the pace from the first slot; 1 or absent: first come, first served.
   */
  readonly repositoryShare: number;
  /** A pace slot this close is waited for in-process (0 on a hand-moved clock, which cannot be slept on). */
  readonly inlineSlotWaitMs: number;
  /** How long a claim lasts before the reconciler may take it back. */
  readonly leaseMs: number;
}

/** Where a decision is told: the log, the metrics and the published events. */
export interface WorkerObs {
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Where each decision and re-run outcome is published (`NO_EVENTS` where none are kept). */
  readonly events: EventPublisher;
}

/** Everything a decision takes from its process, resolved once where the process is assembled. */
export interface WorkerContext {
  readonly stores: WorkerStores;
  readonly github: WorkerGitHub;
  readonly settings: DecisionSettings;
  readonly obs: WorkerObs;
  /** The clock the pace, the ledger and the breaker keep (tests move it). */
  readonly clock: () => number;
  /** Identifies this worker's claims. */
  readonly owner: string;
}

/** The fields every log line of one decision starts with. */
export type DecisionLine = Readonly<Record<string, unknown>>;

/** The run's fields that start every log line of its decision. */
export const decisionLine = (msg: RunMessage): DecisionLine => ({
  run_id: msg.runId,
  run_attempt: msg.runAttempt,
  repository: `${msg.repository.owner}/${msg.repository.name}`,
  delivery: msg.deliveryId,
});
