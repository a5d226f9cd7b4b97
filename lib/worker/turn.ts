import { setTimeout as sleep } from 'node:timers/promises';
import { type TurnStep, turnStep } from '../decide/decide.js';
import { isLate, type RerunPacing } from '../ledger/pacing.js';
import type { MetricSink } from '../obs/types.js';

/**
 * A turn this close is waited for in-process: the queue hides a message in whole seconds, so a
 * shorter deferral would cost a receive and a second of visibility for a wait of less.
 */
export const INLINE_TURN_WAIT_MS = 1_000;

export interface TurnDeps {
  readonly pacing: RerunPacing;
  readonly maxWaitMs: number;
  readonly now: () => number;
  /** Waits up to this long in-process for a turn; 0 on a hand-moved clock, which cannot be slept on. */
  readonly inlineWaitMs: number;
  readonly metrics: MetricSink;
}

/** A turn already reserved by the waiting attempt, if any. */
export interface KeptTurn {
  readonly slotAt?: number;
  readonly waitingSince?: number;
}

export type Turn =
  | Exclude<TurnStep, { kind: 'wait' }>
  /** Not yet: the attempt waits for `until`, the slot it reserved, counted from `waitingSince`. */
  | { readonly kind: 'wait'; readonly until: number; readonly waitingSince: number };

/**
 * The run's turn in its installation's pace: the slot it kept while waiting, or a new one when
 * it has none or came back later than the allowance (a late turn that went at once would burst
 * past GitHub's window together with the others that came back late). A turn within
 * `inlineWaitMs` is waited for here; a later one is a wait the caller turns into a deferral.
 * A run with no slot free within `maxWaitMs` of when it started waiting is expired.
 */
export async function takeTurn(installationId: number | null, kept: KeptTurn, deps: TurnDeps): Promise<Turn> {
  const waitingSince = kept.waitingSince ?? deps.now();
  let slotAt = kept.slotAt;
  if (slotAt !== undefined && isLate(slotAt, deps.now())) {
    deps.metrics.count('LateTurn');
    slotAt = undefined;
  }
  slotAt ??= await deps.pacing.reserve(installationId, waitingSince + deps.maxWaitMs);
  const now = deps.now();
  const turn = turnStep({ slotAt, now, waitingSince, maxWaitMs: deps.maxWaitMs });
  if (turn.kind !== 'wait') return turn;
  if (turn.until - now <= deps.inlineWaitMs) {
    await sleep(turn.until - now);
    return { kind: 'go' };
  }
  return { kind: 'wait', until: turn.until, waitingSince };
}

/** A report waits in-process for its slot at most this long. */
const REPORT_MAX_WAIT_MS = 1_000;

/**
 * With the pace, a report takes a slot only when one is free within a slot's spacing (and a
 * second): when re-runs of the installation are waiting for their turn, the report yields and
 * is skipped.
 */
export async function reportTurn(
  installationId: number | null,
  deps: Pick<TurnDeps, 'pacing' | 'now'>,
): Promise<boolean> {
  const latest = deps.now() + Math.min(deps.pacing.spacingMs, REPORT_MAX_WAIT_MS);
  const slot = await deps.pacing.reserve(installationId, latest);
  if (slot === undefined) return false;
  const wait = slot - deps.now();
  if (wait > 0) await sleep(wait);
  return true;
}
