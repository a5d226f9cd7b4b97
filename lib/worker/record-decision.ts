/**
 * The last stage of a decision: the re-run outcome an attempt reports on the one before it, and
 * the decision itself (job lines, check run, decision line, ledger, event).
 */
import { redOutcome } from '../decide/breaker.js';
import { decisionEvent, outcomeEvent, publishQuietly } from '../events/build.js';
import { reportCheckRun } from '../github/report.js';
import type { RepoApi } from '../github/repo-api.js';
import type { DecisionKind, JobVerdict, RepoConfig, RunMessage } from '../model.js';
import type { RunOutcome, WorkerDeps } from './worker-deps.js';
import { boundedOutcome } from './bounded-outcome.js';
import { reportTurn } from './turn.js';

/**
 * The outcome of this attempt when it is a re-run reprise made: the red attempt's own
 * evidence says whether it was lost again. A failed write is logged, never the decision's fault.
 */
export async function recordOutcome(
  msg: RunMessage,
  deps: WorkerDeps,
  repository: string,
  verdicts: readonly JobVerdict[],
  base: Record<string, unknown>,
): Promise<void> {
  if (msg.runAttempt < 2) return;
  const outcome = redOutcome(msg.conclusion, verdicts);
  const ref = {
    installationId: msg.installationId,
    repoId: msg.repository.id,
    repository,
    runId: msg.runId,
    runAttempt: msg.runAttempt,
  };
  try {
    if ((await deps.outcomes.recordIfRerun(ref, outcome)) !== 'recorded') return;
    deps.log.info('re-run outcome', { ...base, outcome });
    deps.metrics.count('RerunOutcome', 1, { name: 'outcome', value: outcome });
    await publishQuietly(deps.events, outcomeEvent(ref, outcome, deps.now()), deps.log, base);
  } catch (e) {
    deps.log.warn('could not record the re-run outcome', { ...base, error: (e as Error).message });
  }
}

export async function record(
  msg: RunMessage,
  deps: WorkerDeps,
  api: RepoApi,
  config: RepoConfig,
  base: Record<string, unknown>,
  given: {
    decision: DecisionKind;
    reason: string;
    verdicts: readonly JobVerdict[];
    unexamined: number;
    /** GitHub requests the decision made before it waited for its turn (0 when it did not wait). */
    priorRequests: number;
  },
): Promise<RunOutcome> {
  const o = { ...boundedOutcome({ ...given, verdicts: [...given.verdicts] }), priorRequests: given.priorRequests };
  for (const v of o.verdicts) {
    deps.log.info('job', {
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
    const go = await reportTurn(msg.installationId, deps).catch((e: Error) => {
      deps.log.warn('could not reserve a turn for the check run', { ...base, error: e.message });
      return false;
    });
    if (go) {
      await reportCheckRun(api, msg.headSha, o, o.verdicts).catch((e: Error) =>
        deps.log.warn('could not create the reprise check run', { ...base, error: e.message }),
      );
    } else {
      deps.log.info('check run skipped: re-runs of this installation are waiting for their turn', base);
      deps.metrics.count('ReportYielded');
    }
  }
  // Both halves of a decision that waited for its turn.
  const requests = o.priorRequests + api.requests;
  const line = { ...base, decision: o.decision, reason: o.reason, requests, unexamined: o.unexamined };
  if (o.decision === 'no_infra_evidence' || o.decision === 'rerun_rejected' || o.decision === 'expired')
    deps.log.warn('decision', line);
  else deps.log.info('decision', line);
  deps.metrics.count('Decision', 1, { name: 'decision', value: o.decision });
  if (o.decision === 'budget_exhausted') deps.metrics.count('BudgetExhausted');
  const kept = await deps.ledger.attempts.finalise(msg, deps.owner, o.decision, o.reason, {
    requests,
    // The workflow and each job's own times: `reprise report` counts the minutes lost from them.
    workflow: msg.workflow.name,
    jobs: o.verdicts.map((v) => ({
      name: v.job.name,
      verdict: v.verdict,
      source: v.source,
      ...(v.job.startedAt && { startedAt: v.job.startedAt }),
      ...(v.job.completedAt && { completedAt: v.job.completedAt }),
    })),
  });
  if (!kept) deps.log.warn('claim was lost before the decision was recorded', line);
  // Published once the decision is recorded (or its claim found lost), so a consumer never acts on one undone.
  await publishQuietly(deps.events, decisionEvent(msg, o, deps.now()), deps.log, line);
  return { decision: o.decision, reason: o.reason, requests, verdicts: o.verdicts };
}
