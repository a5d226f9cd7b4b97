/** Domain types shared by the pure core and its adapters. */

/** The small message the intake enqueues for one completed workflow run attempt. */
export interface RunMessage {
  readonly v: 1;
  readonly deliveryId: string;
  /** Absent on repository (non-App) webhooks; App credentials then cannot act on it. */
  readonly installationId: number | null;
  readonly repository: { readonly id: number; readonly owner: string; readonly name: string };
  readonly runId: number;
  readonly runAttempt: number;
  readonly workflow: { readonly id: number; readonly name: string; readonly path: string | null };
  /** The event that triggered the run (push, pull_request, …). */
  readonly event: string;
  readonly headSha: string;
  readonly headBranch: string | null;
  readonly conclusion: 'failure' | 'cancelled';
  readonly pullRequests: readonly number[];
  /** The run's creation time (`workflow_run.created_at`); absent on messages that predate it. */
  readonly createdAt?: string;
  /** The run's number in its workflow (`workflow_run.run_number`); absent on messages that predate it. */
  readonly runNumber?: number;
}

/**
 * A request to end a run early: an exact signal named the runner of one of its running jobs
 * (or a sibling of such a job ended). The worker reads the run afresh before anything is sent.
 */
export interface RecoveryMessage {
  readonly v: 1;
  readonly kind: 'recovery';
  readonly installationId: number | null;
  readonly repository: { readonly id: number; readonly owner: string; readonly name: string };
  readonly runId: number;
  /** The job whose runner a signal named, and that runner. */
  readonly jobId: number;
  readonly runnerName: string;
  /** What brought the request: the signal itself, or the end of a healthy sibling the run waited for. */
  readonly trigger: 'signal' | 'sibling_ended';
}

/** What the work queue carries: a completed run attempt to decide, or a run to end early. */
export type QueueMessage = RunMessage | RecoveryMessage;

/** True for a request to end a run early, false for a completed run's message. */
export const isRecoveryMessage = (m: QueueMessage): m is RecoveryMessage =>
  (m as { kind?: unknown }).kind === 'recovery';

/** A job's conclusion as GitHub reports it; null while it runs. */
export type JobConclusion =
  'success' | 'failure' | 'cancelled' | 'skipped' | 'neutral' | 'timed_out' | 'action_required' | null;

/** What the worker knows about one job of the attempt. */
export interface JobFacts {
  readonly id: number;
  readonly nodeId: string;
  readonly name: string;
  readonly status: string;
  readonly conclusion: JobConclusion;
  readonly runnerName: string | null;
  /** The runner group the job ran in (`runner_group_name`): a group-scoped signal counts only there. */
  readonly runnerGroupName?: string | null;
  /** When a runner took the job; absent on facts that predate it. */
  readonly startedAt?: string | null;
  readonly completedAt: string | null;
  /** The attempt this execution of the job belongs to; 0 when GitHub did not say. */
  readonly runAttempt: number;
}

/** A check-run annotation of a job: evidence the classifier reads beside the log. */
export interface Annotation {
  readonly level: string;
  readonly title: string | null;
  readonly message: string;
}

/** What the worker knows about the run itself, read fresh from GitHub. */
export interface RunFacts {
  readonly id: number;
  readonly status: string;
  readonly conclusion: string | null;
  readonly runAttempt: number;
  readonly event: string;
  readonly headSha: string;
  readonly headBranch: string | null;
  readonly workflowId: number;
  readonly createdAt: string;
}

/** What an exact signal says happened to a runner's machine. */
export type SignalKind = 'spot-interruption' | 'rebalance' | 'terminated' | 'external';

/** A runner-keyed record that says the machine under a runner went away. */
export interface RunnerSignal {
  readonly runnerKey: string;
  readonly kind: SignalKind;
  readonly eventTime: string;
  readonly instanceId?: string;
  readonly source: string;
}

/** How long before and after a job ended a runner signal still counts for it. */
export interface SignalWindow {
  readonly beforeMs: number;
  readonly afterMs: number;
}

/** The re-run calls: the failed jobs, one job, the whole run. */
export type RerunCall = 'failed_jobs' | 'job' | 'run';

/** How GitHub answered a re-run call: it re-ran, or it refused, in its own words. */
export type RerunAnswer =
  | { readonly call: RerunCall; readonly accepted: true }
  | { readonly call: RerunCall; readonly accepted: false; readonly refusal: string };

/** What the classifier says of one job: lost to infrastructure, a genuine failure, not known, or vetoed. */
export type Verdict = 'infra' | 'genuine' | 'inconclusive' | 'vetoed';
/** `platform`: GitHub's own platform failure (a hosted runner not provisioned, an internal error), text only. */
/**
 * What decided a job's verdict. `state-change`: an EC2 instance state change that nothing outside
 * the workload warned of, a loss with the strength of text (see exactSignals).
 */
export type EvidenceSource =
  'signal' | 'annotations' | 'logs' | 'annotations+logs' | 'platform' | 'state-change' | 'unreadable' | 'none';

/**
 * The kind of evidence that decided a verdict, whichever text or signal carried it; the order in
 * which families win is lib/classify/precedence.ts. `none`: nothing decisive was found or read.
 */
export type EvidenceFamily =
  'veto' | 'exit-code' | 'failure-text' | 'signal' | 'runner-loss' | 'platform' | 'state-change' | 'none';

/** One job's verdict with the evidence behind it. */
export interface JobVerdict {
  readonly job: JobFacts;
  readonly verdict: Verdict;
  readonly source: EvidenceSource;
  /** The text or signal that decided it, short: for display; the data is `family` and `pattern`. */
  readonly evidence: string;
  /** The family that decided it. Absent only on verdicts an older version kept in the ledger. */
  readonly family?: EvidenceFamily;
  /** The name of the pattern that matched (`self-hosted-lost`, `not-acquired`, `extra:<source>`, …), when one did. */
  readonly pattern?: string;
  /** Set when the job's log was wanted and could not be had: GitHub no longer has it, or would not serve it. */
  readonly logUnavailable?: 'missing' | 'unreadable';
  /** Vetoes say who decided: a person, concurrency or a timeout. */
  readonly veto?: 'person' | 'concurrency' | 'timeout';
  /** Set when the evidence could not be read within the decision's work budget: the run is left alone. */
  readonly cutShort?: true;
  /** With signal evidence: when the runner was lost (the exact signal's event time), for the time to recovery. */
  readonly lostAt?: string;
}

/** What the worker decided for a run attempt: re-run, leave, wait, or why not. */
export type DecisionKind =
  | 'ignored'
  | 'run_incomplete'
  | 'stale'
  | 'attempt_cap'
  | 'budget_exhausted'
  | 'no_candidate_jobs'
  | 'vetoed'
  | 'genuine_failure'
  | 'no_infra_evidence'
  | 'dry_run'
  | 'retried'
  | 'retried_all'
  | 'rerun_rejected'
  /** A merge-group run lost to infrastructure: its pull request was put back in the merge queue. */
  | 'requeued'
  | 'duplicate'
  /** The run waited for its re-run slot past `max_wait` and was left alone. */
  | 'expired'
  /** The local runtime stopped twice while deciding it: left alone rather than decided forever. */
  | 'abandoned'
  /** Would have been re-run, but the operator paused reprise (`reprise pause`): `reprise replay` sends it again. */
  | 'paused';

/** The decisions that re-ran something on GitHub: deciding such an attempt again could re-run it twice. */
export const RERUN_DECISIONS = ['retried', 'retried_all'] as const satisfies readonly DecisionKind[];

/** True for a decision that re-ran jobs (the failed ones or all). */
export const isRerunDecision = (decision: string | undefined): boolean =>
  (RERUN_DECISIONS as readonly (string | undefined)[]).includes(decision);

/**
 * How a re-run attempt reprise made ended: green (`recovered`), red again with runner-loss
 * evidence (`lost_again`), red for another reason (`failed`), or cancelled.
 */
export type RerunOutcome = 'recovered' | 'lost_again' | 'failed' | 'cancelled';

/** Every re-run outcome, in the order reports list them. */
export const RERUN_OUTCOMES = [
  'recovered',
  'lost_again',
  'failed',
  'cancelled',
] as const satisfies readonly RerunOutcome[];

/** A decision and the reason it gives, as the ledger records it and events publish it. */
export interface Decision {
  readonly decision: DecisionKind;
  readonly reason: string;
}

/**
 * A regular expression compiled for a linear-time engine (RE2): matching it can never take
 * longer than the text and pattern sizes allow, whoever wrote either.
 */
export interface TextPattern {
  /** The expression as written. */
  readonly source: string;
  /** Instructions of the compiled program: the work per character of text is at most this. */
  readonly size: number;
  test(text: string): boolean;
}

/** The decision settings, after defaults and the repository's `.github/reprise.yml` are merged. */
export interface RepoConfig {
  readonly enabled: boolean;
  /** Workflow names covered; null means every workflow. */
  readonly workflows: readonly string[] | null;
  /** Total attempts allowed when an exact signal proves the loss. */
  readonly maxAttempts: number;
  /** Lower cap when the only evidence is text (an OOM-kill leaves the same text). */
  readonly textOnlyMaxAttempts: number;
  readonly extraPatterns: readonly TextPattern[];
  readonly ignoreJobs: readonly string[];
  readonly dryRun: boolean;
  readonly rerunAllFallback: boolean;
  /** Which runs get the staleness check (docs/configuration.md). */
  readonly staleCheck: 'off' | 'pull_request' | 'branch' | 'all';
  readonly report: 'log' | 'check_run';
  readonly requireExactSignal: boolean;
  /** Minutes a job may wait for a runner before it is reported stuck; 15 when absent. */
  readonly stuckAfterMinutes?: number;
  /** Why `enabled` is false when no `enabled: false` said so (a file that fails closed). */
  readonly disabledReason?: string;
  /** What a merge-group run lost to infrastructure gets; `requeue` when absent. */
  readonly mergeQueue?: MergeQueueMode;
  /** Re-enqueues allowed per pull-request head; 1 when absent. */
  readonly maxRequeues?: number;
  /** What a job lost to GitHub's own platform failure gets; `rerun` when absent. */
  readonly platformErrors?: PlatformErrors;
  /** Whether a run whose runner an exact signal proves gone is ended before GitHub's lease runs out; `off` when absent. */
  readonly earlyRecovery?: EarlyRecovery;
}

/**
 * `off`: wait for GitHub to fail the lost job (its lease, ~10 minutes); `last_job`: end the run
 * (`force-cancel`) once every job still running is on a runner proven gone; `now`: end it at once,
 * healthy siblings included (they are re-run too).
 */
export type EarlyRecovery = 'off' | 'last_job' | 'now';

/** `rerun`: GitHub's platform failures count as infrastructure (text-only strength); `leave`: the run is left alone. */
export type PlatformErrors = 'rerun' | 'leave';

/**
 * `requeue`: put the pull request back in the merge queue (a refusal falls back to the re-run);
 * `rerun`: re-run the failed jobs, as for any run; `off`: leave merge-group runs alone.
 */
export type MergeQueueMode = 'requeue' | 'rerun' | 'off';
