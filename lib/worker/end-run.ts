/**
 * The end of a run before GitHub's lease runs out: claimed once per run attempt in the ledger,
 * then `force-cancel` (a dead runner never acknowledges `cancel`). A fault is tried again, at most
 * `MAX_FORCE_CANCEL_CALLS` calls in all; a refusal is final. Either way nothing loops: a run
 * GitHub would not end waits for GitHub's own failure, and its completion takes the usual path.
 */
import { RateLimitedError } from '../errors.js';
import type { RepoApi } from '../github/repo-api.js';
import type { ForceCancelAnswer } from '../github/force-cancel.js';
import type { RecoveryRef, RunRecoveries } from '../ledger/run-recoveries.js';
import type { RecoveryStep } from '../decide/early-recovery.js';
import type { WorkerObs } from './context.js';

/** Calls of `force-cancel` for one run attempt, faults included: a 5xx may pass, a refusal will not. */
export const MAX_FORCE_CANCEL_CALLS = 3;

/** Between two calls after a fault: 1 s, then 2 s. */
export const forceCancelBackoffMs = (callsSoFar: number): number => 1000 * callsSoFar;

/** What ending a run early needs: early recovery's store, the outputs, the clock and (tests) a sleep. */
export interface EndContext {
  readonly stores: { readonly recoveries: Pick<RunRecoveries, 'claimEnd' | 'settleEnd' | 'releaseEnd'> };
  readonly obs: Pick<WorkerObs, 'log' | 'metrics'>;
  readonly clock: () => number;
  /** Waits between calls after a fault; a timer when absent. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** How ending the run went: ended, refused by GitHub, or already ended by another; with the calls it took. */
export interface EndResult {
  readonly outcome: 'ended' | 'end_refused' | 'already_ended';
  readonly reason: string;
  readonly calls: number;
}

const timer = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Claims the attempt's end, sends `force-cancel` and records GitHub's answer. A rate limit gives the claim back and is thrown. */
export async function endRun(
  ref: RecoveryRef,
  step: Extract<RecoveryStep, { kind: 'end_run' }>,
  lost: { readonly runnerName: string; readonly lostAt: string | undefined },
  api: Pick<RepoApi, 'forceCancel'>,
  ctx: EndContext,
  line: Record<string, unknown>,
): Promise<EndResult> {
  const at = new Date(ctx.clock()).toISOString();
  const claimed = await ctx.stores.recoveries.claimEnd(ref, {
    at,
    lostAt: lost.lostAt ?? at,
    runnerName: lost.runnerName,
    reason: step.reason,
  });
  if (!claimed) {
    return { outcome: 'already_ended', reason: `attempt ${ref.runAttempt} was already ended by reprise`, calls: 0 };
  }
  const sleep = ctx.sleep ?? timer;
  let calls = 0;
  let answer: ForceCancelAnswer;
  for (;;) {
    try {
      answer = await api.forceCancel(ref.runId);
    } catch (err) {
      // Turned away before GitHub acted: nothing was ended, so the claim goes back and the request waits.
      if (err instanceof RateLimitedError && calls === 0) await ctx.stores.recoveries.releaseEnd(ref);
      else await ctx.stores.recoveries.settleEnd(ref, 'refused', calls);
      throw err;
    }
    calls++;
    if (answer.kind !== 'fault' || calls >= MAX_FORCE_CANCEL_CALLS) break;
    ctx.obs.log.warn('force-cancel failed; trying again', { ...line, fault: answer.fault, calls });
    await sleep(forceCancelBackoffMs(calls));
  }
  const accepted = answer.kind === 'accepted';
  await ctx.stores.recoveries.settleEnd(ref, accepted ? 'accepted' : 'refused', calls);
  ctx.obs.metrics.count(accepted ? 'RunEndedEarly' : 'EarlyEndRefused');
  if (answer.kind === 'accepted') return { outcome: 'ended', reason: `force-cancel accepted: ${step.reason}`, calls };
  const why = answer.kind === 'refused' ? answer.refusal : answer.fault;
  return {
    outcome: 'end_refused',
    reason: `force-cancel not accepted (${why}); GitHub's own failure of the job is waited for`,
    calls,
  };
}
