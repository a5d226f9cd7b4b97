import { setTimeout as sleep } from 'node:timers/promises';
import { type PaceSlotStep, paceSlotStep } from '../decide/decide.js';
import { TransientError } from '../errors.js';
import { isLate, type ShareReservation } from '../ledger/pacing.js';
import type { RunMessage } from '../model.js';
import type { DecisionSettings, WorkerContext, WorkerStores } from './context.js';
import { appRequestsOf, type Judged } from './evaluate.js';
import { factsToCache, encodeCachedFacts } from './cached-run-facts.js';
import type { Deferred } from './result.js';

/**
 * A slot this close is waited for in-process: the queue hides a message in whole seconds, so a
 * shorter deferral would cost a receive and a second of visibility for a wait of less.
 */
export const INLINE_SLOT_WAIT_MS = 1_000;

/** What taking a pace slot needs: the pace, how long a run may wait, the metrics and the clock. */
export interface PaceSlotContext {
  readonly stores: Pick<WorkerStores, 'pacing'>;
  readonly settings: Pick<DecisionSettings, 'maxWaitMs' | 'inlineSlotWaitMs'> &
    Partial<Pick<DecisionSettings, 'repositoryShare'>>;
  readonly obs: Pick<WorkerContext['obs'], 'metrics'>;
  readonly clock: () => number;
}

/** A slot already reserved by the waiting attempt, if any. */
export interface ReservedSlot {
  readonly slotAt?: number;
  readonly waitingSince?: number;
  /** The wait was for a time to ask again (a place in the repository's line), not for a reserved slot. */
  readonly unreserved?: boolean;
}

/** Where the run stands in its installation's pace: go now, final (expired), or wait until a time. */
export type PaceSlot =
  | Exclude<PaceSlotStep, { kind: 'wait' }>
  /**
   * Not yet: the attempt waits for `until`, counted from `waitingSince`: the slot it reserved, or
   * (`unreserved`) when to ask again, holding a place in its repository's line.
   */
  | { readonly kind: 'wait'; readonly until: number; readonly waitingSince: number; readonly unreserved?: boolean };

/**
 * The run's slot in its installation's pace: the slot it kept while waiting, or a new one when
 * it has none or came back later than the allowance (a late slot that went at once would burst
 * past GitHub's window together with the others that came back late). A slot within
 * `inlineSlotWaitMs` is waited for here; a later one is a wait the caller turns into a deferral
 * (`waitForPaceSlot`). A run with no slot free within `maxWaitMs` of when it started waiting is expired.
 */
export async function takePaceSlot(
  installationId: number | null,
  kept: ReservedSlot,
  ctx: PaceSlotContext,
  repository?: number,
): Promise<PaceSlot> {
  const { maxWaitMs, inlineSlotWaitMs } = ctx.settings;
  const waitingSince = kept.waitingSince ?? ctx.clock();
  let slotAt = kept.unreserved ? undefined : kept.slotAt;
  if (slotAt !== undefined && isLate(slotAt, ctx.clock())) {
    ctx.obs.metrics.count('LateTurn');
    slotAt = undefined;
  }
  if (slotAt === undefined) {
    const got = await reserveWithinShare(installationId, waitingSince + maxWaitMs, ctx, repository, kept.unreserved);
    if ('askAgainAt' in got) {
      ctx.obs.metrics.count('RepositoryTurnShare');
      return { kind: 'wait', until: got.askAgainAt, waitingSince, unreserved: true };
    }
    slotAt = 'slotAt' in got ? got.slotAt : undefined;
  }
  const now = ctx.clock();
  const step = paceSlotStep({ slotAt, now, waitingSince, maxWaitMs });
  if (step.kind === 'final') ctx.obs.metrics.count('Expired');
  if (step.kind !== 'wait') return step;
  if (step.until - now <= inlineSlotWaitMs) {
    await sleep(step.until - now);
    return { kind: 'go' };
  }
  return { kind: 'wait', until: step.until, waitingSince };
}

/**
 * The pace's slot for the run, taking turns across repositories when the pace can and a share
 * is set: a slot within the inline wait, or a place in its repository's line (`returning`: the
 * place it holds).
 */
async function reserveWithinShare(
  installationId: number | null,
  latest: number,
  ctx: PaceSlotContext,
  repository: number | undefined,
  returning: boolean | undefined,
): Promise<ShareReservation> {
  const { pacing } = ctx.stores;
  const share = ctx.settings.repositoryShare;
  if (pacing.reserveWithinShare && repository !== undefined && share !== undefined && share < 1) {
    // A slot within the inline wait is taken now; a later turn is a place, asked for again that long before it.
    const aheadMs = ctx.settings.inlineSlotWaitMs;
    return pacing.reserveWithinShare(installationId, latest, { repository, aheadMs, returning: returning === true });
  }
  const slotAt = await pacing.reserve(installationId, latest);
  return slotAt === undefined ? { full: true } : { slotAt };
}

/** A wait for the re-run slot at `untilMs`, in the words of the log line. */
export const paceSlotWait = (untilMs: number, now: number, unreserved = false): Deferred => ({
  kind: 'deferred',
  untilMs,
  reason: unreserved
    ? `waiting for a re-run turn in its repository's line (repositories take turns); asking again in ${Math.ceil((untilMs - now) / 1000)}s`
    : `waiting for a re-run turn in ${Math.ceil((untilMs - now) / 1000)}s`,
  metric: 'RerunWaiting',
});

/** What turning a claim into a wait for its pace slot needs: the attempts' store, the lease, the clock and the owner. */
export interface WaitContext {
  readonly stores: Pick<WorkerStores, 'attempts'>;
  readonly settings: Pick<DecisionSettings, 'leaseMs'>;
  readonly clock: () => number;
  readonly owner: string;
}

/**
 * Turns the claim into a wait for the slot, keeping what the slot will need (the facts and the
 * requests made so far), and answers the deferral. A claim lost meanwhile is a fault.
 */
export async function waitForPaceSlot(
  msg: RunMessage,
  judged: Judged,
  requestsSoFar: number,
  slot: { readonly until: number; readonly waitingSince: number; readonly unreserved?: boolean },
  ctx: WaitContext,
): Promise<Deferred> {
  const kept = encodeCachedFacts(factsToCache(judged, requestsSoFar, await appRequestsOf(judged)));
  const { attempts } = ctx.stores;
  const waited = await attempts.wait(
    msg,
    ctx.owner,
    slot.until,
    slot.waitingSince,
    ctx.settings.leaseMs,
    kept,
    slot.unreserved,
  );
  if (!waited) {
    throw new TransientError('the claim was lost before the run could wait for its turn');
  }
  return paceSlotWait(slot.until, ctx.clock(), slot.unreserved);
}

/** A report waits in-process for its slot at most this long. */
const REPORT_MAX_WAIT_MS = 1_000;

/**
 * With the pace, a report takes a slot only when one is free within a slot's spacing (and a
 * second): when re-runs of the installation are waiting for their slot, the report yields and
 * is skipped. With repositories taking turns, the report's slot is its repository's turn in the
 * rotation: a repository with runs in its line skips its report rather than take a turn
 * another repository's run comes before.
 */
export async function reportPaceSlot(
  installationId: number | null,
  ctx: {
    readonly stores: Pick<WorkerStores, 'pacing'>;
    readonly clock: () => number;
    readonly settings?: Partial<Pick<DecisionSettings, 'maxWaitMs' | 'repositoryShare'>>;
  },
  repository?: number,
): Promise<boolean> {
  const { pacing } = ctx.stores;
  const latest = ctx.clock() + Math.min(pacing.spacingMs, REPORT_MAX_WAIT_MS);
  const share = ctx.settings?.repositoryShare;
  let slot: number | undefined;
  if (pacing.reserveWithinShare && repository !== undefined && share !== undefined && share < 1) {
    const got = await pacing.reserveWithinShare(installationId, latest, { repository, aheadMs: REPORT_MAX_WAIT_MS });
    slot = 'slotAt' in got ? got.slotAt : undefined;
  } else {
    slot = await pacing.reserve(installationId, latest);
  }
  if (slot === undefined) return false;
  const wait = slot - ctx.clock();
  if (wait > 0) await sleep(wait);
  return true;
}
