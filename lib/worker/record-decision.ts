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
import { appRequestsOf, type Judged } from './evaluate.js';
import type { Log } from '../obs/types.js';
import type { RunOutcome } from './result.js';
import { reportPaceSlot } from './pace-slot.js';

/** What recording a re-run's outcome needs: the outcomes' store, the outputs and the clock. */
export interface OutcomeContext {
  readonly stores: Pick<WorkerStores, 'outcomes'>;
  readonly obs: WorkerContext['obs'];
  readonly clock: () => number;
}

/** What recording a decision needs: the claim to finalise, the pace for its check run, and the outputs. */
export interface RecordContext extends OutcomeContext {
  readonly stores: Pick<WorkerStores, 'outcomes' | 'attempts' | 'pacing'>;
  readonly owner: string;
  /** A report's pace slot is its repository's, within its share of the pace. */
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

/** The decision as recorded: bounded for the log and the ledger, with the requests made before a wait. */
type Recorded = Decision & {
  readonly verdicts: JobVerdict[];
  readonly unexamined: number;
  /** GitHub requests the decision made before it waited for its pace slot (0 when it did not wait). */
  readonly priorRequests: number;
};

/** Fields every line of the decision carries: the run's, and a broken or clamped repository file. */
type LineBase = DecisionLine & { readonly config_error?: string; readonly config_clamped?: readonly string[] };

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
  const { log, events } = ctx.obs;
  if (judged.step.kind === 'rerun' && isRerunDecision(decided.decision)) {
    ctx.obs.metrics.count('Rerun');
    ctx.obs.metrics.count(judged.step.evidence === 'exact' ? 'ExactSignalRetry' : 'TextOnlyRetry');
  }
  const { o, base } = recorded(judged, decided, line);
  logJobLines(o.verdicts, base, log);
  // A file that fails closed reads no job, but its owners still see its error where they asked.
  if (judged.config.report === 'check_run' && (o.verdicts.length > 0 || base.config_error !== undefined)) {
    await reportWhenPaceAllows(msg, o, api, ctx, base);
  }
  // Both halves of a decision that waited for its pace slot.
  const requests = o.priorRequests + api.requests;
  // The App's own requests (its delivery log, its JWT) are not the installation's: counted apart.
  const counted = { requests, appRequests: await appRequestsOf(judged) };
  const now = ctx.clock();
  const timing = recoveryTiming(o.verdicts, now, isRerunDecision(o.decision), judged.facts.endedByReprise === true);
  const recovery = timing && recoveryFields(timing);
  const decisionLog = logDecision(o, base, counted, judged.facts.stale?.decidedBy, recovery, ctx);
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

/** The decision as recorded, and the base of its lines: a broken or clamped file is named in both. */
function recorded(judged: Judged, decided: Decision, line: DecisionLine): { o: Recorded; base: LineBase } {
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
    priorRequests: judged.priorRequests,
  };
  return { o, base };
}

/** One line per judged job: its verdict, where it came from and the evidence. */
function logJobLines(verdicts: readonly JobVerdict[], base: LineBase, log: Log): void {
  for (const v of verdicts) {
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
}

/** The check run, when the installation's pace has a slot free soon; otherwise it yields to the waiting re-runs. */
async function reportWhenPaceAllows(
  msg: RunMessage,
  o: Recorded,
  api: RepoApi,
  ctx: RecordContext,
  base: LineBase,
): Promise<void> {
  const { log, metrics } = ctx.obs;
  const go = await reportPaceSlot(msg.installationId, ctx, msg.repository.id).catch((e: Error) => {
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

/** The decision line (a warning for the decisions an operator should look at) and its metrics; answers the line. */
function logDecision(
  o: Recorded,
  base: LineBase,
  counted: { readonly requests: number; readonly appRequests: number },
  staleCheck: string | undefined,
  recovery: ReturnType<typeof recoveryFields> | undefined,
  ctx: RecordContext,
): Record<string, unknown> {
  const { log, metrics } = ctx.obs;
  const evidence = lostJobEvidence(o.verdicts);
  const decisionLog = {
    ...base,
    decision: o.decision,
    reason: o.reason,
    requests: counted.requests,
    ...(counted.appRequests > 0 && { app_requests: counted.appRequests }),
    // Which source decided a branch run's currency: the record (its delivery log clean) or a listing.
    ...(staleCheck && { stale_check: staleCheck }),
    unexamined: o.unexamined,
    ...(evidence.length > 0 && { evidence }),
    ...(recovery && { recovery }),
  };
  if (o.decision === 'no_infra_evidence' || o.decision === 'rerun_rejected' || o.decision === 'expired')
    log.warn('decision', decisionLog);
  else log.info('decision', decisionLog);
  metrics.count('Decision', 1, { name: 'decision', value: o.decision });
  if (o.decision === 'budget_exhausted') metrics.count('BudgetExhausted');
  return decisionLog;
}
