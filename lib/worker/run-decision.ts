/**
 * One decision, stage by stage: claim the run attempt (or settle a copy), evaluate it (or resume
 * a wait from the run facts it cached), take the pace slot, take a unit of the retry budget, act on
 * GitHub, record. Each stage is its own module; this one says the order, and what a fault at
 * each step undoes: each step is wrapped with its own undo, from what the steps before it
 * returned. Ordinary outcomes (a decision, a wait, a duplicate) are returned; only faults are thrown.
 */
import { RateLimitedError } from '../errors.js';
import { RepoApi } from '../github/repo-api.js';
import type { Decision, RunMessage } from '../model.js';
import type { ClaimResult } from '../records.js';
import { giveBackUnit, spendsBudget, takeUnit } from './budget-unit.js';
import { noteCallFailed, pauseForBreaker, releaseClaim, settleUnclaimed } from './claim.js';
import { decisionLine, type DecisionLine, type WorkerContext } from './context.js';
import { evaluateAfresh, type Judged } from './evaluate.js';
import { readCachedFacts, resumeFromCache } from './cached-run-facts.js';
import { recordDecision, recordOutcome } from './record-decision.js';
import { act, type Acted, type RerunStep } from './rerun-calls.js';
import type { Deferred, RunResult } from './result.js';
import { operatorPause } from './operator-pause.js';
import { SentRequestError } from './sent-request-error.js';
import { takeTurn, waitForTurn } from './turn.js';

/**
 * Decides one run attempt: claim it, gather only the facts the decision asks for, re-run at
 * most once, record the outcome. A fault before the re-run call, or a rate limit on it, gives
 * the claim and the budget unit back and is rethrown, so the message is retried; after any other
 * fault of the call the claim stays for the reconciler, noted with the failure. The merge-queue
 * mutation counts as a sent call, never as one in flight.
 */
export async function runDecision(msg: RunMessage, ctx: WorkerContext): Promise<RunResult> {
  const line = decisionLine(msg);
  const claim = await ctx.stores.attempts.claim(msg, ctx.owner, ctx.settings.leaseMs);
  if (!claim.claimed) return settleUnclaimed(msg, claim.existing, ctx, line);

  const { owner, name } = msg.repository;
  const api = new RepoApi(ctx.github.client(msg.installationId), owner, name, ctx.github.graphqlUrl);
  const giveBack = (unit: boolean) => async (): Promise<void> => {
    await releaseClaim(msg, ctx, line);
    if (unit) await giveBackUnit(msg, ctx, line);
  };

  const ahead = await undoOnFault(giveBack(false), () => beforeTheCall(msg, claim, api, ctx, line));
  if (ahead.kind === 'deferred') return ahead;
  const { judged } = ahead;
  const acted: Acted =
    ahead.kind === 'act' ? await actOrUndo(msg, judged, ahead.step, api, ctx, line) : { ...ahead.decided, sent: false };
  const unitTaken = ahead.kind === 'act';
  if (unitTaken && !spendsBudget(acted.decision)) await giveBackUnit(msg, ctx, line);
  // Once a request left, the claim stays whatever faults after it: the reconciler settles it.
  const undo = acted.sent ? async (): Promise<void> => {} : giveBack(unitTaken);
  const decided: Decision = { decision: acted.decision, reason: acted.reason };
  const outcome = await undoOnFault(undo, () => recordDecision(msg, judged, decided, api, ctx, line));
  return { kind: 'decided', outcome };
}

/** Where the steps before any call lead: a wait, a decision with nothing to send, or the act with a unit taken. */
type Ahead =
  | Deferred
  | { readonly kind: 'final'; readonly judged: Judged; readonly decided: Decision }
  | { readonly kind: 'act'; readonly judged: Judged; readonly step: RerunStep };

/** Evaluate, record the verdicts, then the breaker, the pace slot and the unit: nothing leaves for GitHub here. */
async function beforeTheCall(
  msg: RunMessage,
  claim: Extract<ClaimResult, { readonly claimed: true }>,
  api: RepoApi,
  ctx: WorkerContext,
  line: DecisionLine,
): Promise<Ahead> {
  const cached = readCachedFacts(claim.kept);
  const judged = cached ? await resumeFromCache(msg, cached, api, ctx) : await evaluateAfresh(msg, api, ctx, line);
  // The attempt reports on the re-run before it, from its own verdicts (a pass resumed after a wait did so before it).
  if (!cached) await recordOutcome(msg, judged.verdicts, ctx, line);
  const { step } = judged;
  if (step.kind === 'wait') return pauseForBreaker(msg, step, ctx, line);
  if (step.kind === 'final') return { kind: 'final', judged, decided: step };
  // The operator's pause, read now, so it holds from the next decision on.
  const paused = await operatorPause(msg, ctx);
  if (paused) return { kind: 'final', judged, decided: paused };

  const slot = await takeTurn(msg.installationId, claim, ctx, msg.repository.id);
  // Once the wait is written the attempt is its waiting message's: nothing after it can fault.
  if (slot.kind === 'wait') return waitForTurn(msg, judged, judged.priorRequests + api.requests, slot, ctx);
  if (slot.kind === 'final') return { kind: 'final', judged, decided: slot };

  const unit = await takeUnit(msg, ctx);
  if (!unit.taken) return { kind: 'final', judged, decided: unit };
  return { kind: 'act', judged, step };
}

/**
 * The act, with its undo at the call: a fault before anything left, or a request turned away
 * (a rate limit), gives the claim and the unit back; a re-run call whose outcome is unknown
 * keeps both, the claim noted with the failure; a faulted merge-queue mutation keeps both.
 * The fault itself is rethrown.
 */
async function actOrUndo(
  msg: RunMessage,
  judged: Judged,
  step: RerunStep,
  api: RepoApi,
  ctx: WorkerContext,
  line: DecisionLine,
): Promise<Acted> {
  try {
    return await act(msg, judged, step, api, ctx);
  } catch (err) {
    const fault = err instanceof SentRequestError ? err.cause : err;
    // A rate-limited call was turned away before GitHub acted on it, so the claim goes back as
    // well; a re-decision that finds the run at a later attempt answers duplicate.
    if (!(err instanceof SentRequestError) || fault instanceof RateLimitedError) {
      await releaseClaim(msg, ctx, line);
      await giveBackUnit(msg, ctx, line);
    } else if (err.inFlight) await noteCallFailed(msg, fault, ctx, line);
    throw fault;
  }
}

/** Runs `step`; on its fault runs `undo`, then rethrows. */
async function undoOnFault<T>(undo: () => Promise<void>, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    await undo();
    throw err;
  }
}
