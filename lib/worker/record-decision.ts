/**
 * The last stage of a decision: the re-run outcome an attempt reports on the one before it, and
 * the decision itself (job lines, check run, decision line, ledger, event).
 */
import { redOutcome } from '../decide/breaker.js';
import { clampNote } from '../github/repo-config-source.js';
import { decisionEvent, lostJobEvidence, outcomeEvent, publishQuietly, recoveryFields } from '../events/build.js';
import { recoveryTiming } from '../decide/early-recovery.js';
import { reportCheckRun } from '../github/report.js';
import type { RepoApi } from '../github/repo-api.js';
import { type Decision, isRerunDecision, type JobVerdict, type RunMessage } from '../model.js';
import { boundedOutcome } from './bounded-outcome.js';
import type { DecisionLine, DecisionSettings, WorkerContext, WorkerStores } from './context.js';
import type { Judged } from './evaluate.js';
import type { RunOutcome } from './result.js';
import { reportTurn } from './turn.js';

export interface OutcomeContext {
  readonly stores: Pick<WorkerStores, 'outcomes'>;
  readonly obs: WorkerContext['obs'];
  readonly clock: () => number;
}

export interface RecordContext extends OutcomeContext {
  readonly stores: Pick<WorkerStores, 'outcomes' | 'attempts' | 'pacing'>;
  readonly owner: string;
  /** A report's turn is its repository's, within its share of the pace. */
  readonly settings?: Partial<Pick<DecisionSettings, 'maxWaitMs' | 'repositoryShare'>>;
}

/**
 * The outcome of this attempt when it is a re-run reprise made: the red attempt's own
 * evidence says whether it was lost again. A failed write is logged, never the decision's fault.
 */
export async function recordOutcome(
  msg: RunMessage,
  verdicts: readonly JobVerdict[],
  ctx: OutcomeContext,
  line: DecisionLine,
): Promise<void> {
  if (msg.runAttempt < 2) return;
  const { log, metrics, events } = ctx.obs;
  const outcome = redOutcome(msg.conclusion, verdicts);
  const ref = {
    installationId: msg.installationId,
    repoId: msg.repository.id,
    repository: `${msg.repository.owner}/${msg.repository.name}`,
    runId: msg.runId,
    runAttempt: msg.runAttempt,
  };
  try {
    if ((await ctx.stores.outcomes.recordIfRerun(ref, outcome)) !== 'recorded') return;
    log.info('re-run outcome', { ...line, outcome });
    metrics.count('RerunOutcome', 1, { name: 'outcome', value: outcome });
    await publishQuietly(events, outcomeEvent(ref, outcome, ctx.clock()), log, line);
  } catch (e) {
    log.warn('could not record the re-run outcome', { ...line, error: (e as Error).message });
  }
}

/**
 * Records the decision: the re-run counted, each job's line, the check run (when the
 * installation's pace has a slot free), the decision line with both halves of a decision that
 * waited, the ledger, then the event.
 */
export async function recordDecision(
  msg: RunMessage,
  judged: Judged,
  decided: Decision,
  api: RepoApi,
  ctx: RecordContext,
  line: DecisionLine,
): Promise<RunOutcome> {
  const { log, metrics, events } = ctx.obs;
  const { step, config } = judged;
  if (step.kind === 'rerun' && isRerunDecision(decided.decision)) {
    metrics.count('Rerun');
    metrics.count(step.evidence === 'exact' ? 'ExactSignalRetry' : 'TextOnlyRetry');
  }
  // The repository's owners read the decision (log line, check run), so a broken file is named there.
  const notes = [judged.configError, judged.clamped && clampNote(judged.clamped)].filter(Boolean);
  const reason = [...notes, decided.reason].join('; ');
  const base = {
    ...line,
    ...(judged.configErrorRaw && { config_error: judged.configErrorRaw }),
    ...(judged.clamped && { config_clamped: judged.clamped }),
  };
  const o = {
    ...boundedOutcome({ decision: decided.decision, reason, verdicts: [...judged.verdicts] }),
    unexamined: judged.unexamined,
    // GitHub requests the decision made before it waited for its turn (0 when it did not wait).
    priorRequests: judged.priorRequests,
  };
  for (const v of o.verdicts) {
    log.info('job', {
      ...base,
      job_id: v.job.id,
      name: v.job.name,
      conclusion: v.job.conclusion,
      runner_name: v.job.runnerName,
      verdict: v.verdict,
      source: v.source,
      evidence: v.evidence,
    });
  }
  // A file that fails closed reads no job, but its owners still see its error where they asked.
  if (config.report === 'check_run' && (o.verdicts.length > 0 || base.config_error !== undefined)) {
    const go = await reportTurn(msg.installationId, ctx, msg.repository.id).catch((e: Error) => {
      log.warn('could not reserve a turn for the check run', { ...base, error: e.message });
      return false;
    });
    if (go) {
      await reportCheckRun(api, msg.headSha, o, o.verdicts).catch((e: Error) =>
        log.warn('could not create the reprise check run', { ...base, error: e.message }),
      );
    } else {
      log.info('check run skipped: re-runs of this installation are waiting for their turn', base);
      metrics.count('ReportYielded');
    }
  }
  // Both halves of a decision that waited for its turn.
  const requests = o.priorRequests + api.requests;
  const evidence = lostJobEvidence(o.verdicts);
  const now = ctx.clock();
  const timing = recoveryTiming(o.verdicts, now, isRerunDecision(o.decision), judged.facts.endedByReprise === true);
  const recovery = timing && recoveryFields(timing);
  const decisionLog = {
    ...base,
    decision: o.decision,
    reason: o.reason,
    requests,
    unexamined: o.unexamined,
    ...(evidence.length > 0 && { evidence }),
    ...(recovery && { recovery }),
  };
  if (o.decision === 'no_infra_evidence' || o.decision === 'rerun_rejected' || o.decision === 'expired')
    log.warn('decision', decisionLog);
  else log.info('decision', decisionLog);
  metrics.count('Decision', 1, { name: 'decision', value: o.decision });
  if (o.decision === 'budget_exhausted') metrics.count('BudgetExhausted');
  const kept = await ctx.stores.attempts.finalise(msg, ctx.owner, o.decision, o.reason, {
    requests,
    // The workflow and each job's own times: `reprise report` counts the minutes lost from them.
    workflow: msg.workflow.name,
    jobs: o.verdicts.map((v) => ({
      name: v.job.name,
      verdict: v.verdict,
      source: v.source,
      ...(v.family && { family: v.family }),
      ...(v.pattern !== undefined && { pattern: v.pattern }),
      ...(v.job.startedAt && { startedAt: v.job.startedAt }),
      ...(v.job.completedAt && { completedAt: v.job.completedAt }),
    })),
    ...(recovery && { recovery }),
  });
  if (!kept) log.warn('claim was lost before the decision was recorded', decisionLog);
  // Published once the decision is recorded (or its claim found lost), so a consumer never acts on one undone.
  await publishQuietly(events, decisionEvent(msg, o, now, timing), log, decisionLog);
  return { decision: o.decision, reason: o.reason, requests, verdicts: o.verdicts };
}
