import {
  isRerunDecision,
  type DecisionKind,
  type EvidenceSource,
  type JobVerdict,
  type RerunOutcome,
  type RunMessage,
} from '../model.js';
import type { AttemptRef } from '../records.js';
import type { RecoveryTiming } from '../decide/early-recovery.js';
import type { DecisionEvent, EventPublisher, RepriseEvent, RerunOutcomeEvent } from './types.js';
import type { Log } from '../obs/types.js';

/** Decisions that leave a red run red for good: reprise will not re-run it, and a person should know. */
const FINAL_FAILURES: ReadonlySet<DecisionKind> = new Set<DecisionKind>([
  'genuine_failure',
  'no_infra_evidence',
  'attempt_cap',
  'budget_exhausted',
  'vetoed',
  'rerun_rejected',
  'expired',
  'abandoned',
]);

/** The evidence families of the jobs judged lost (signal, annotations, logs, platform, …), each once. */
export const lostJobEvidence = (verdicts: readonly JobVerdict[]): EvidenceSource[] => [
  ...new Set(verdicts.filter((v) => v.verdict === 'infra').map((v) => v.source)),
];

/**
 * The names of the patterns that judged the jobs lost (`self-hosted-lost`, `not-acquired`, …), each
 * once, read from the verdicts' `pattern` field; a verdict kept by an older version has none.
 */
export const lostJobPatterns = (verdicts: readonly JobVerdict[]): string[] => [
  ...new Set(verdicts.flatMap((v) => (v.verdict === 'infra' && v.pattern !== undefined ? [v.pattern] : []))),
];

/** The event of one decision: what was decided for a run attempt, the jobs judged lost and how. */
export function decisionEvent(
  msg: RunMessage,
  o: { decision: DecisionKind; reason: string; verdicts: readonly JobVerdict[] },
  nowMs: number,
  timing?: RecoveryTiming,
): DecisionEvent {
  const rerun = isRerunDecision(o.decision);
  const patterns = lostJobPatterns(o.verdicts);
  return {
    version: 1,
    kind: 'decision',
    time: new Date(nowMs).toISOString(),
    installation_id: msg.installationId,
    repository: `${msg.repository.owner}/${msg.repository.name}`,
    run_id: msg.runId,
    run_attempt: msg.runAttempt,
    workflow_name: msg.workflow.name || null,
    head_sha: msg.headSha,
    decision: o.decision,
    reason: o.reason,
    rerun,
    next_attempt: rerun ? msg.runAttempt + 1 : null,
    lost_jobs: o.verdicts.filter((v) => v.verdict === 'infra').map((v) => v.job.name),
    lost_job_evidence: lostJobEvidence(o.verdicts),
    ...(patterns.length > 0 && { lost_job_patterns: patterns }),
    final_failure: FINAL_FAILURES.has(o.decision),
    ...(timing && { recovery: recoveryFields(timing) }),
  };
}

/** The time to recovery as the decision's event, log line and ledger record name it. */
export const recoveryFields = (t: RecoveryTiming): NonNullable<DecisionEvent['recovery']> => ({
  lost_at: t.lostAt,
  early: t.early,
  seconds_to_rerun: t.secondsToRerun,
  waited_for_github_seconds: t.secondsWaitedForGitHub,
});

/** The event of a re-run attempt's outcome: how the attempt reprise started ended. */
export const outcomeEvent = (ref: AttemptRef, outcome: RerunOutcome, nowMs: number): RerunOutcomeEvent => ({
  version: 1,
  kind: 'rerun_outcome',
  time: new Date(nowMs).toISOString(),
  installation_id: ref.installationId,
  repository: ref.repository,
  run_id: ref.runId,
  run_attempt: ref.runAttempt,
  outcome,
});

/** Where no events are kept: the local runtime without an events file. */
export const NO_EVENTS: EventPublisher = { publish: async () => undefined };

/** Publishes, and logs a failure: an event lost is never the decision's fault. */
export async function publishQuietly(
  events: EventPublisher | undefined,
  event: RepriseEvent,
  log: Log,
  line: Record<string, unknown>,
): Promise<void> {
  if (!events) return;
  try {
    await events.publish(event);
  } catch (err) {
    log.warn(`could not publish the ${event.kind} event`, { ...line, error: (err as Error).message });
  }
}
