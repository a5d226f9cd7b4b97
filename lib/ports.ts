/**
 * The interfaces the layers share: the pure core declares them, the adapters implement them,
 * the flows and faces pass them around. Nothing here does I/O.
 */
import type { BreakerFacts } from './decide/breaker.js';
import type { DecisionKind, RerunOutcome, RunMessage, SignalKind } from './model.js';

/** The narrow logging and metrics surfaces the domain needs; Powertools implements both. */
export interface Log {
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

export interface MetricSink {
  /** Adds `value` to a counter (or records a gauge) with optional single dimension. */
  count(name: string, value?: number, dimension?: { readonly name: string; readonly value: string }): void;
}

/** The run queue: SQS FIFO when deployed, the embedded queue locally. */
export interface RunQueue {
  send(message: RunMessage, groupId: string, deduplicationId: string): Promise<void>;
}

/**
 * Where a run attempt stands in the ledger: claimed by a worker, waiting for its re-run turn
 * (its message hidden until then), or decided.
 */
export type AttemptState = 'claimed' | 'waiting' | 'decided';

/** A run attempt as the ledger holds it: a worker's claim, then its decision. */
export interface AttemptRecord {
  readonly state: AttemptState;
  readonly owner: string;
  readonly claimedAt: number;
  readonly leaseUntil: number;
  readonly repository: string;
  readonly runId: number;
  readonly runAttempt: number;
  readonly installationId: number | null;
  /** The message that claimed it, so a sweep can decide the attempt again. */
  readonly message: string;
  readonly decision?: DecisionKind;
  readonly reason?: string;
  readonly decidedAt?: number;
  readonly details?: Record<string, unknown>;
  /** While waiting: the reserved re-run slot (epoch ms). */
  readonly slotAt?: number;
  /** When the attempt first had to wait for its turn (epoch ms); kept across the wait. */
  readonly waitingSince?: number;
  /** While waiting: the facts gathered before the wait (JSON), so the turn need not gather them again. */
  readonly kept?: string;
  /** Set on a claim whose re-run call failed with no answer to tell whether GitHub acted. */
  readonly callError?: string;
}

/** A run attempt item as stored, with its keys. */
export type StoredAttempt = AttemptRecord & { readonly pk: string; readonly sk: string; readonly ttl?: number };

export type ClaimResult =
  /** With `slotAt`: the claim took over a waiting attempt, which keeps the re-run slot it reserved. */
  | { readonly claimed: true; readonly slotAt?: number; readonly waitingSince?: number; readonly kept?: string }
  | { readonly claimed: false; readonly existing?: AttemptRecord };

/** What became of a run attempt re-run by reprise once the reconciler looked at the next attempt. */
export type FollowUp = 'delivered' | 'enqueued' | 'completed' | 'superseded' | 'expired';

export interface DecisionFilter {
  readonly repository?: string;
  readonly sinceMs?: number;
  readonly limit?: number;
}

/** Reads one run attempt, consistently. */
export interface AttemptReader {
  get(repoId: number, runId: number, attempt: number): Promise<AttemptRecord | undefined>;
}

/** What an operator's replay needs: read the attempt, and give back one that did not re-run. */
export interface ReplayLedger extends AttemptReader {
  /**
   * Deletes exactly the record that was read (same state, same claim time), and never one
   * that records a re-run. False when the record changed meanwhile.
   */
  forceRelease(msg: RunMessage, seen: AttemptRecord): Promise<boolean>;
}

/** Recorded decisions, for listings. */
export interface DecisionLog {
  listDecisions(filter?: DecisionFilter): Promise<AttemptRecord[]>;
}

/** Per-installation re-runs in the rolling hour (the circuit breaker). */
export interface RetryBudget {
  usage(installationId: number | null): Promise<{ limit: number; used: number }>;
  spend(installationId: number | null, runKey: string): Promise<void>;
}

/**
 * The pace of one installation's content-generating requests (re-runs, then reports), shared
 * by every worker: each request reserves a slot in time, and sends no earlier than its slot.
 */
export interface RerunPacing {
  /** Spacing of consecutive slots, in ms. */
  readonly spacingMs: number;
  /**
   * Reserves the next free slot of the installation and answers its time (epoch ms), or
   * undefined, reserving nothing, when the next free slot is later than `latest` (a slot free
   * now is taken whatever `latest` says).
   */
  reserve(installationId: number | null, latest?: number): Promise<number | undefined>;
}

/**
 * The reconciler's reads and writes. Every write is one conditional single-item write, so a
 * sweep repeated, or two sweeps at once, change nothing twice; each answers false when the
 * item was not in the state the sweep read.
 */
export interface ReconcileStore {
  cursor<T extends object>(name: string): Promise<T | undefined>;
  saveCursor(name: string, state: object): Promise<void>;
  /**
   * One page of run attempts that may need the reconciler: claims whose lease ended, and
   * re-runs by reprise decided before `completedBefore` and not yet followed up.
   */
  scanAttempts(
    start: Record<string, unknown> | undefined,
    limit: number,
    completedBefore: number,
  ): Promise<{ items: StoredAttempt[]; next: Record<string, unknown> | undefined }>;
  /** One page of every run attempt claimed or waiting, whatever its lease: what a restart looks at. */
  scanHeld(
    start: Record<string, unknown> | undefined,
    limit: number,
  ): Promise<{ items: StoredAttempt[]; next: Record<string, unknown> | undefined }>;
  /** Records the decision of a claim whose worker died after its re-run call went through. */
  recordOrphan(rec: StoredAttempt, decision: DecisionKind, reason: string, details: object): Promise<boolean>;
  /** Deletes the claim only if it is still the same one: same owner, same lease. */
  releaseOrphan(rec: StoredAttempt): Promise<boolean>;
  /** Puts a released claim back when its message could not be enqueued, so the next sweep tries again. */
  restoreClaim(rec: StoredAttempt): Promise<boolean>;
  /**
   * Marks that this run attempt's claim is being released. Succeeds for the first claim ever
   * released, and again for that same claim (a sweep that stopped half-way); fails for any other.
   */
  markReclaim(rec: StoredAttempt, repoId: number): Promise<boolean>;
  /** True the first time only: an orphan that is left alone is reported once. */
  markAbandoned(rec: StoredAttempt, repoId: number): Promise<boolean>;
  markFollowUp(rec: StoredAttempt, followUp: FollowUp, detail: string): Promise<boolean>;
  /** Claims the one redelivery of a delivery GUID; false when it was already asked for. */
  claimRedelivery(guid: string, deliveryId: number): Promise<boolean>;
  /** Gives the redelivery back after GitHub failed to take it, so a later sweep asks again. */
  releaseRedelivery(guid: string): Promise<void>;
  noteRedelivery(guid: string, outcome: string): Promise<boolean>;
}

/** What the reconciler needs of the ledger: attempts, deliveries the intake accepted, its own store. */
export interface ReconcileLedger extends AttemptReader {
  isSeen(guid: string): Promise<boolean>;
  /** The reconciler's store on the same table, on the reconciler's clock. */
  reconcileStore(now: () => number): ReconcileStore;
}

/** A run attempt named by where it lives, for the outcome of a re-run. */
export interface AttemptRef {
  readonly installationId: number | null;
  readonly repoId: number;
  /** `owner/name`, for listings. */
  readonly repository: string;
  readonly runId: number;
  readonly runAttempt: number;
}

/** An outcome as recorded, beside the run attempt it belongs to. */
export interface OutcomeRecord {
  readonly outcome: RerunOutcome;
  readonly runAttempt: number;
  readonly recordedAt: number;
}

/**
 * The outcome of each re-run attempt reprise made, once per attempt: `recorded` the first
 * time, `already` for every repeat (a redelivery, the reconciler), `not_a_rerun` when the
 * attempt before it was not re-run by reprise (a person re-ran it, or it is the first).
 */
export interface RerunOutcomeLog {
  recordIfRerun(attempt: AttemptRef, outcome: RerunOutcome): Promise<'recorded' | 'already' | 'not_a_rerun'>;
  get(repoId: number, runId: number, attempt: number): Promise<OutcomeRecord | undefined>;
}

/** A pull request put back in the merge queue: its head, and the merge group that ejected it. */
export interface RequeueRef {
  readonly repoId: number;
  readonly pullRequest: number;
  /** The pull-request head the group tested. */
  readonly headSha: string;
  /** The group's commit (the run's head sha). */
  readonly groupSha: string;
}

/**
 * The merge-queue loop guard: at most `max` re-enqueues per pull-request head, and one per
 * merge group, each taken by a single-item conditional write before the mutation is sent.
 */
export interface RequeueLog {
  /** `claimed` for the one caller that may send the mutation; `group_handled` or `cap` for every other. */
  claim(ref: RequeueRef, max: number): Promise<'claimed' | 'group_handled' | 'cap'>;
  /** Gives a claim back when the mutation was turned away unsent (a rate limit), so a retry may take it. */
  release(ref: RequeueRef): Promise<void>;
}

/** Per-installation pause of automatic re-runs when re-run attempts keep being lost. */
export interface RerunBreaker {
  /** The breaker now; `tripped` only for the one caller whose read opened it. */
  state(installationId: number | null): Promise<BreakerFacts & { readonly tripped: boolean }>;
  /** The breaker as it stands, without opening it. */
  look(installationId: number | null): Promise<BreakerFacts>;
}

/** A recorded decision as reports read it: without the stored message. */
export type DecidedAttempt = Omit<AttemptRecord, 'message'>;

/** A re-run attempt's outcome, with the run it belongs to. */
export interface OutcomeFact extends OutcomeRecord {
  readonly repository: string;
  readonly runId: number;
}

/** One runner signal record (an event is recorded once per runner key of its instance). */
export interface SignalFact {
  readonly runnerKey: string;
  readonly kind: SignalKind;
  readonly eventTime: string;
  /** Makes the write idempotent: EventBridge delivers at least once. */
  readonly eventId: string;
  readonly source: string;
  readonly instanceId?: string;
  /** From DescribeInstances: the EC2 event names the instance only. */
  readonly instanceType?: string;
  readonly availabilityZone?: string;
}

/** Everything the ledger holds about a period, for `reprise report`. */
export interface ReportFacts {
  readonly decisions: readonly DecidedAttempt[];
  readonly outcomes: readonly OutcomeFact[];
  readonly signals: readonly SignalFact[];
}

export interface ReportLedger {
  /** Decisions, re-run outcomes and runner signals from `sinceMs` on. */
  reportFacts(sinceMs: number): Promise<ReportFacts>;
}

/** A job waiting for a runner, as its `workflow_job.queued` event named it. */
export interface QueuedJob {
  readonly installationId: number | null;
  readonly repoId: number;
  /** `owner/name`. */
  readonly repository: string;
  readonly runId: number;
  readonly runAttempt: number;
  readonly jobId: number;
  readonly name: string;
  readonly workflowName: string | null;
  readonly headSha: string;
  readonly labels: readonly string[];
}

/** A queued job as the ledger holds it. */
export interface QueuedJobRecord extends QueuedJob {
  /** When the intake received the `queued` event (epoch ms). */
  readonly queuedAt: number;
  /** When a sweep reported it stuck; a job is reported once. */
  readonly reportedAt?: number;
}

/**
 * Jobs waiting for a runner: recorded from `queued`, forgotten on `in_progress` or `completed`,
 * reported stuck by the reconciler's sweep at most once each.
 */
export interface QueuedJobLog {
  /** Records the job; a repeated `queued` keeps the first time. */
  queued(job: QueuedJob): Promise<void>;
  /** Forgets the job: a runner picked it up, or it ended. */
  clear(repoId: number, jobId: number): Promise<void>;
  /** Every job waiting now, reported or not. */
  list(): Promise<QueuedJobRecord[]>;
  /** True for the one caller that marks it reported; false when already reported or cleared meanwhile. */
  markReported(job: QueuedJobRecord): Promise<boolean>;
}

/**
 * Events reprise publishes, one per decision, re-run outcome and stuck-queued job: the `detail`
 * of an EventBridge event (source `reprise`), a line of the local runtime's events file.
 * docs/events.schema.json is their schema; `version` changes only when a field changes meaning.
 */
interface EventBase {
  readonly version: 1;
  /** When reprise made the event (ISO 8601). */
  readonly time: string;
  readonly installation_id: number | null;
  /** `owner/name`. */
  readonly repository: string;
  readonly run_id: number;
  readonly run_attempt: number;
}

export interface DecisionEvent extends EventBase {
  readonly kind: 'decision';
  readonly decision: DecisionKind;
  readonly reason: string;
  readonly workflow_name: string | null;
  readonly head_sha: string;
  /** reprise re-ran the run: `run_attempt + 1` is on its way. */
  readonly rerun: boolean;
  /** The attempt the re-run starts, when `rerun`. */
  readonly next_attempt: number | null;
  /** The jobs the re-run starts again, when `rerun`; those judged lost otherwise. */
  readonly lost_jobs: readonly string[];
  /** The run stays red and reprise will not re-run it. */
  readonly final_failure: boolean;
}

export interface RerunOutcomeEvent extends EventBase {
  readonly kind: 'rerun_outcome';
  readonly outcome: RerunOutcome;
}

export interface StuckQueuedEvent extends EventBase {
  readonly kind: 'stuck_queued';
  readonly job_id: number;
  readonly job_name: string;
  readonly workflow_name: string | null;
  readonly labels: readonly string[];
  readonly queued_at: string;
  readonly waited_seconds: number;
  readonly stuck_after_minutes: number;
  /** The job belongs to an attempt reprise started by a re-run. */
  readonly reprise_rerun: boolean;
  readonly reason: string;
}

export type RepriseEvent = DecisionEvent | RerunOutcomeEvent | StuckQueuedEvent;

/** Where events go: EventBridge when deployed, a JSON-lines file locally. */
export interface EventPublisher {
  publish(event: RepriseEvent): Promise<void>;
}
