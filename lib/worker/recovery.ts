/**
 * Early recovery: a request names a running job whose runner an exact signal proved gone. The
 * run is read afresh (its state, staleness, its jobs and their runners' signals), the pure
 * `decideRecovery` says what to do, and at most one `force-cancel` per run attempt ends it. The
 * run's completion then arrives as any other and its decision re-runs the lost jobs.
 */
import {
  decideRecovery,
  earlyRecoveryMode,
  lossAt,
  lossProvenAt,
  type RecoveryStep,
} from '../decide/early-recovery.js';
import { staleCheckApplies, staleReason } from '../decide/decide.js';
import { RepoApi, runFactsOf } from '../github/repo-api.js';
import { describePause } from '../ledger/pauses.js';
import type { RecoveryRef } from '../ledger/run-recoveries.js';
import type { JobFacts, RecoveryMessage, RepoConfig } from '../model.js';
import { runMessageOfRecord } from '../webhook/recovery-message.js';
import type { WorkerContext } from './context.js';
import { endRun, type EndContext } from './end-run.js';
import type { Deferred } from './result.js';
import { branchGap, findStaleness, startGapRead } from './staleness.js';

/** What became of one recovery request. Faults are thrown, never returned. */
export type RecoveryResult =
  | {
      readonly kind: 'done';
      /** The step's outcome, or how the end went (`ended`, `end_refused`). */
      readonly outcome: string;
      readonly reason: string;
      readonly requests: number;
    }
  | Deferred;

/** What early recovery reads and writes: GitHub, the signals and branch records, the repository's file and its own store. */
export type RecoveryContext = Pick<WorkerContext, 'github' | 'obs' | 'clock'> & {
  readonly stores: Pick<WorkerContext['stores'], 'signals' | 'branchRuns' | 'repoConfig' | 'recoveries' | 'pauses'>;
  readonly settings: Pick<WorkerContext['settings'], 'defaults' | 'signalWindow' | 'repositoryAllowList'>;
} & Pick<EndContext, 'sleep'>;

/** The fields every log line of one recovery request starts with. */
export const recoveryLine = (m: RecoveryMessage): Record<string, unknown> => ({
  repository: `${m.repository.owner}/${m.repository.name}`,
  run_id: m.runId,
  job_id: m.jobId,
  runner_name: m.runnerName,
  trigger: m.trigger,
});

/**
 * Reads what the recovery decision needs, decides, and acts on the step. `lookedAgain` is set on
 * the one second look after a wait for siblings was written.
 */
export async function runRecovery(
  msg: RecoveryMessage,
  ctx: RecoveryContext,
  lookedAgain = false,
): Promise<RecoveryResult> {
  const { owner, name } = msg.repository;
  const line = recoveryLine(msg);
  const allowList = ctx.settings.repositoryAllowList;
  if (allowList && !allowList.includes(`${owner}/${name}`)) {
    return done(ctx, line, 'off', 'repository is not in the deployment allow-list', 0);
  }
  const api = new RepoApi(ctx.github.client(msg.installationId), owner, name, ctx.github.graphqlUrl);
  const { config } = await ctx.stores.repoConfig.load(api, owner, name, ctx.settings.defaults);
  const mode = config.enabled ? earlyRecoveryMode(config) : 'off';
  if (mode === 'off') return done(ctx, line, 'off', 'early_recovery is off', api.requests);
  // The operator's pause stops every early end as it stops every re-run.
  const pause = await ctx.stores.pauses.active(owner, name);
  if (pause) return done(ctx, line, 'paused', `not ended: ${describePause(pause)}`, api.requests);

  const record = await api.runRecord(msg.runId);
  const runAttempt = record.run_attempt ?? 1;
  const ref: RecoveryRef = { repoId: msg.repository.id, runId: msg.runId, runAttempt };
  const status = record.status ?? 'unknown';
  const stale = status === 'completed' ? undefined : await staleness(msg, record, config, api, ctx);
  const ended = stale || status === 'completed' ? undefined : await ctx.stores.recoveries.endOf(ref);
  const jobs = stale || ended || status === 'completed' ? [] : await api.listAttemptJobs(msg.runId, runAttempt);
  const gone = await runnersGone(jobs, msg, ctx);
  const step = decideRecovery({
    mode,
    dryRun: config.dryRun,
    now: ctx.clock(),
    run: { status, runAttempt },
    ...(stale && { stale }),
    ...(ended && { alreadyEnded: true }),
    jobs,
    request: { jobId: msg.jobId, runnerName: msg.runnerName },
    provenGone: gone.provenAt,
  });
  return act(msg, ref, step, gone.lostAt.get(msg.runnerName), api, ctx, line, lookedAgain);
}

async function act(
  msg: RecoveryMessage,
  ref: RecoveryRef,
  step: RecoveryStep,
  lostAt: string | undefined,
  api: RepoApi,
  ctx: RecoveryContext,
  line: Record<string, unknown>,
  lookedAgain: boolean,
): Promise<RecoveryResult> {
  switch (step.kind) {
    case 'wait_for_proof':
      ctx.obs.log.info('early recovery waits for the proof', { ...line, reason: step.reason });
      return { kind: 'deferred', untilMs: step.untilMs, reason: step.reason, metric: 'RecoveryWaitsForProof' };
    case 'wait_for_siblings': {
      // Each sibling's `workflow_job` `completed` finds this and sends the request again.
      await ctx.stores.recoveries.awaitSiblings(msg);
      // One that ended before the wait was written found none: look once more, and decide again if all ended.
      const again = lookedAgain ? [] : await api.listAttemptJobs(ref.runId, ref.runAttempt);
      const ended = (name: string) => again.some((j) => j.name === name && j.status === 'completed');
      if (!lookedAgain && step.running.every(ended))
        return runRecovery({ ...msg, trigger: 'sibling_ended' }, ctx, true);
      return done(ctx, line, 'wait_for_siblings', step.reason, api.requests, { running: step.running });
    }
    case 'leave':
      if (step.outcome !== 'job_ended' && step.outcome !== 'not_proven') {
        await ctx.stores.recoveries.stopWaiting(ref.repoId, ref.runId);
      }
      return done(ctx, line, step.outcome, step.reason, api.requests);
    case 'end_run': {
      await ctx.stores.recoveries.stopWaiting(ref.repoId, ref.runId);
      const end = await endRun(ref, step, { runnerName: msg.runnerName, lostAt }, api, ctx, line);
      return done(ctx, line, end.outcome, end.reason, api.requests, {
        lost_jobs: step.lost.map((j) => j.name),
        also_ended: step.alsoEnded.map((j) => j.name),
        force_cancel_calls: end.calls,
        ...(lostAt && { lost_at: lostAt }),
      });
    }
  }
}

/** Why a re-run of this run would be wasted or harmful, checked as the completion's decision would. */
async function staleness(
  msg: RecoveryMessage,
  record: Awaited<ReturnType<RepoApi['runRecord']>>,
  config: RepoConfig,
  api: RepoApi,
  ctx: RecoveryContext,
): Promise<string | undefined> {
  const asRun = runMessageOfRecord(msg, record);
  if (!staleCheckApplies(config, asRun)) return undefined;
  const run = runFactsOf(record);
  // A record that names the run current holds only if GitHub's delivery log shows no lost
  // workflow_run delivery since the run started (the App's request, beside the record's read).
  const read = startGapRead(asRun, ctx.github.deliveryLog);
  const gap = read && branchGap(read, asRun, ctx.obs.log);
  return staleReason(await findStaleness(api, asRun, run, config, ctx.stores.branchRuns, gap), asRun);
}

/** For each runner of a running job with an exact signal: when it is proven gone, and when it was lost. */
async function runnersGone(
  jobs: readonly JobFacts[],
  msg: RecoveryMessage,
  ctx: RecoveryContext,
): Promise<{ provenAt: Map<string, number>; lostAt: Map<string, string> }> {
  const provenAt = new Map<string, number>();
  const lostAt = new Map<string, string>();
  const runners = new Set(jobs.filter((j) => j.status === 'in_progress' && j.runnerName).map((j) => j.runnerName!));
  for (const runner of runners) {
    const group = jobs.find((j) => j.runnerName === runner)?.runnerGroupName ?? null;
    const owner = { login: msg.repository.owner, installationId: msg.installationId, runnerGroup: group };
    const signals = await ctx.stores.signals.forRunner(runner, null, ctx.settings.signalWindow, owner);
    const at = lossProvenAt(signals);
    const lost = lossAt(signals);
    if (at !== undefined) provenAt.set(runner, at);
    if (lost !== undefined) lostAt.set(runner, lost);
  }
  return { provenAt, lostAt };
}

function done(
  ctx: RecoveryContext,
  line: Record<string, unknown>,
  outcome: string,
  reason: string,
  requests: number,
  extra: Record<string, unknown> = {},
): RecoveryResult {
  ctx.obs.log.info('early recovery', { ...line, outcome, reason, github_requests: requests, ...extra });
  ctx.obs.metrics.count('EarlyRecovery', 1, { name: 'outcome', value: outcome });
  return { kind: 'done', outcome, reason, requests };
}
