import type { RepoConfig } from '../config/repo-config.js';
import type { GitHubClients } from '../github/client.js';
import type { RepoConfigSource } from '../github/repo-config-source.js';
import type { Ledger } from '../ledger/ledger.js';
import type { DecisionKind, JobVerdict, SignalWindow } from '../model.js';
import type { EventPublisher } from '../events/types.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { RerunBreaker, RerunOutcomeLog } from '../ledger/outcomes.js';
import type { RerunPacing } from '../ledger/pacing.js';
import type { RetryBudget } from '../ledger/budget.js';
import type { EvidenceSources } from './gather-verdicts.js';

export interface WorkerDeps {
  readonly ledger: Ledger;
  readonly client: (installationId: number | null) => GitHubClients;
  readonly graphqlUrl: string;
  readonly configSource: RepoConfigSource;
  readonly defaults: RepoConfig;
  readonly signals: NonNullable<EvidenceSources['signals']>;
  readonly signalWindow: SignalWindow;
  readonly logHosts: readonly string[];
  readonly logWindowBytes: number;
  /** When not null, only these `owner/name` repositories are ever re-run. */
  readonly repositoryAllowList: readonly string[] | null;
  readonly budget: RetryBudget;
  /** The installation's shared pace of re-runs and reports. */
  readonly pacing: RerunPacing;
  /** How long a run may wait for its re-run turn before it is expired. */
  readonly maxWaitMs: number;
  /** A turn this close is waited for in-process (0 on a hand-moved clock, which cannot be slept on). */
  readonly inlineTurnWaitMs: number;
  /** The clock the pace, the ledger and the breaker keep (tests move it). */
  readonly now: () => number;
  /** Where the outcome of each re-run attempt is recorded. */
  readonly outcomes: RerunOutcomeLog;
  /** Pauses an installation's re-runs while they keep being lost. */
  readonly breaker: RerunBreaker;
  /** Where each decision and re-run outcome is published (`NO_EVENTS` where none are kept). */
  readonly events: EventPublisher;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Identifies this worker's claims. */
  readonly owner: string;
  readonly leaseMs: number;
}

export interface RunOutcome {
  readonly decision: DecisionKind;
  readonly reason: string;
  readonly requests: number;
  readonly verdicts: readonly JobVerdict[];
}

/**
 * What became of one message: a decision, or a wait. A wait is no fault: the message goes back
 * to the queue hidden until `untilMs` and is decided then; `metric` names what to count.
 */
export type RunResult =
  | { readonly kind: 'decided'; readonly outcome: RunOutcome }
  | { readonly kind: 'deferred'; readonly untilMs: number; readonly reason: string; readonly metric: string };
