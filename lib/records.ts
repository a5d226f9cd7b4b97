/**
 * The ledger's records as the layers pass them around: run attempts, outcomes, queued jobs and
 * the facts a report reads. Plain data, so the core may name them; nothing here does I/O.
 */
import type { BranchRun } from './decide/branch-staleness.js';
import type { DecisionKind, RerunOutcome, RunnerSignal, SignalKind } from './model.js';

/**
 * Where a run attempt stands in the ledger: claimed by a worker, waiting for its re-run slot
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
  /** When the attempt first had to wait for its slot (epoch ms); kept across the wait. */
  readonly waitingSince?: number;
  /** While waiting: `slotAt` is when to ask the pace again (its repository held its share), not a reserved slot. */
  readonly unreserved?: boolean;
  /** While waiting: the facts gathered before the wait (JSON), so the next pass need not gather them again. */
  readonly kept?: string;
  /** Set on a claim whose re-run call failed with no answer to tell whether GitHub acted. */
  readonly callError?: string;
}

/** What a claim on a run attempt came to: claimed (a waiting attempt taken over keeps its slot), or not, with the record in the way. */
export type ClaimResult =
  /** With `slotAt`: the claim took over a waiting attempt, which keeps the re-run slot it reserved. */
  | {
      readonly claimed: true;
      readonly slotAt?: number;
      readonly waitingSince?: number;
      readonly kept?: string;
      readonly unreserved?: boolean;
    }
  | { readonly claimed: false; readonly existing?: AttemptRecord };

/** What became of a run attempt re-run by reprise once the reconciler looked at the next attempt. */
export type FollowUp = 'delivered' | 'enqueued' | 'completed' | 'superseded' | 'expired';

/** Which decisions a listing asks for: by repository, decision and time. */
export interface DecisionFilter {
  readonly repository?: string;
  readonly sinceMs?: number;
  readonly limit?: number;
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

/**
 * A runner signal as the store reads it back: with the scope an agent's secret posted it under
 * (the owners it may count for); EC2 signals carry none and count for every installation.
 */
export interface RecordedSignal extends RunnerSignal {
  readonly scope?: readonly string[];
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

/** Where the newest run of a workflow on a branch is recorded: one item per key. */
/** A job on the runner it runs on, from a `workflow_job` event: what an interruption warning counts. */
export interface JobOnRunner {
  readonly jobId: number;
  readonly runId: number;
  readonly runnerName: string;
  /** `owner/name`. */
  readonly repository: string;
  /** The repository's id and the App installation: what a request to end the run early names. Absent on older records. */
  readonly repositoryId?: number;
  readonly installationId?: number | null;
}

/** The branch run a `workflow_run` event (requested, in_progress, completed) reports. */
export interface ReportedBranchRun {
  readonly key: BranchRunKey;
  readonly run: BranchRun;
}

/** One branch of one workflow in one repository: where the newest run of the branch is kept. */
export interface BranchRunKey {
  readonly installationId: number | null;
  readonly repoId: number;
  readonly workflowId: number;
  readonly branch: string;
}

/** A ledger record as listings show it (`reprise decisions`, the local runtime's operator routes): without the stored message. */
export type DecisionRecord = Omit<AttemptRecord, 'message'>;

/** A decided attempt as listings show it: without the queue message it was decided from. */
export const withoutMessage = ({ message: _m, ...rest }: AttemptRecord): DecisionRecord => rest;

/**
 * The key of one run attempt, `<repository id>#<run id>#<run attempt>`: what the retry budget
 * spends a unit under, what the outcome log's time index sorts by, what a queued message matches.
 */
export const attemptKey = (repoId: number, runId: number, runAttempt: number): string =>
  `${repoId}#${runId}#${runAttempt}`;
