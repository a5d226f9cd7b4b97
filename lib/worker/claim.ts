/**
 * The claim: what a message does with an attempt another message holds or decided, and how a
 * claim is given back or noted when a decision stops short.
 */
import { decisionEvent, publishQuietly } from '../events/build.js';
import type { AttemptRecord } from '../records.js';
import type { RunMessage } from '../model.js';
import { clip, TEXT_CAPS } from '../util/clip.js';
import type { DecisionLine, WorkerContext, WorkerStores } from './context.js';
import type { Deferred, Duplicate } from './result.js';
import { turnWait } from './turn.js';

/** What a message finds when its run attempt is already claimed, in the words its log line gives. */
export interface PriorClaim {
  readonly reason: string;
  /** True when the claim's re-run call failed and nobody knows yet whether GitHub acted. */
  readonly unsettled: boolean;
}

/** Why the attempt could not be claimed: already decided, its re-run call unsettled, or being decided by another worker. */
export function priorClaim(prior: AttemptRecord | undefined): PriorClaim {
  if (prior?.decision) return { reason: `attempt already decided: ${prior.decision}`, unsettled: false };
  if (prior?.callError) {
    return {
      reason:
        `the re-run call of attempt ${prior.runAttempt} failed (${prior.callError}) and GitHub may have acted on it: ` +
        'not called again; the reconciler settles the attempt once its claim lapses',
      unsettled: true,
    };
  }
  return { reason: 'attempt is being decided by another worker', unsettled: false };
}

/** A failed re-run call, as the claim notes it: the status GitHub answered, or the fault. */
export function callFailure(err: unknown): string {
  const e = err as { status?: unknown; message?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const said = typeof e?.status === 'number' ? `GitHub answered ${e.status}: ${message}` : message;
  return clip(said, TEXT_CAPS.error);
}

/** What settling an unclaimed attempt needs: the log and metrics, and the clock. */
export type SettleContext = Pick<WorkerContext, 'obs' | 'clock'>;

/**
 * An attempt this worker could not claim. Its own waiting message, back early, waits out the
 * rest of its wait for its pace slot; a copy of a waiting attempt is settled, since the waiting
 * message comes back at the slot itself; anything else is a duplicate of a decided or claimed attempt.
 */
export async function settleUnclaimed(
  msg: RunMessage,
  prior: AttemptRecord | undefined,
  ctx: SettleContext,
  line: DecisionLine,
): Promise<Deferred | Duplicate> {
  const { log, metrics, events } = ctx.obs;
  const now = ctx.clock();
  let reason: string;
  if (prior?.state === 'waiting' && (prior.slotAt ?? 0) > now) {
    if (waitedBy(prior) === msg.deliveryId) return turnWait(prior.slotAt!, now, prior.unreserved === true);
    reason = `attempt waits for its re-run turn at ${new Date(prior.slotAt!).toISOString()} under another delivery`;
  } else {
    const settled = priorClaim(prior);
    reason = settled.reason;
    if (settled.unsettled) {
      // Nothing was decided: the failed call's claim is the reconciler's, and no second call is made.
      log.warn('re-run call unsettled', { ...line, reason, requests: 0 });
      metrics.count('RerunCallUnsettled');
      return { kind: 'duplicate', reason };
    }
  }
  log.info('decision', { ...line, decision: 'duplicate', reason, requests: 0 });
  metrics.count('Decision', 1, { name: 'decision', value: 'duplicate' });
  const outcome = { decision: 'duplicate' as const, reason, requests: 0, verdicts: [] };
  await publishQuietly(events, decisionEvent(msg, outcome, now), log, line);
  return { kind: 'duplicate', reason };
}

/** The delivery whose message waits for the attempt's pace slot. */
function waitedBy(prior: AttemptRecord): string | undefined {
  try {
    return (JSON.parse(prior.message) as Partial<RunMessage>).deliveryId;
  } catch {
    return undefined;
  }
}

/** What giving a claim back needs: the attempts' store, the log and this worker's owner id. */
export interface ClaimContext {
  readonly stores: Pick<WorkerStores, 'attempts'>;
  readonly obs: Pick<WorkerContext['obs'], 'log'>;
  readonly owner: string;
}

/** Gives the claim back, so a redelivery decides again. A write that fails is logged: the lease ends it. */
export async function releaseClaim(msg: RunMessage, ctx: ClaimContext, line: DecisionLine): Promise<void> {
  await ctx.stores.attempts
    .release(msg, ctx.owner)
    .catch((e: Error) => ctx.obs.log.warn('could not release claim', { ...line, error: e.message }));
}

/** Notes on the claim that its re-run call failed with GitHub's action unknown; the claim stays. */
export async function noteCallFailed(
  msg: RunMessage,
  err: unknown,
  ctx: ClaimContext,
  line: DecisionLine,
): Promise<void> {
  await ctx.stores.attempts
    .noteCallFailed(msg, ctx.owner, callFailure(err))
    .catch((e: Error) => ctx.obs.log.warn('could not note the failed re-run call', { ...line, error: e.message }));
}

/**
 * The breaker's pause: nothing was called on GitHub, so the claim goes back and the message
 * waits in the queue until the pause ends.
 */
export async function pauseForBreaker(
  msg: RunMessage,
  pause: { readonly untilMs: number; readonly reason: string },
  ctx: ClaimContext & { readonly obs: Pick<WorkerContext['obs'], 'log' | 'metrics'> },
  line: DecisionLine,
): Promise<Deferred> {
  ctx.obs.log.info('decision deferred', {
    ...line,
    reason: pause.reason,
    until: new Date(pause.untilMs).toISOString(),
  });
  ctx.obs.metrics.count('BreakerDeferred');
  await releaseClaim(msg, ctx, line);
  return { kind: 'deferred', untilMs: pause.untilMs, reason: pause.reason, metric: 'RerunPaused' };
}
