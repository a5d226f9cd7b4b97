/**
 * One decision, stage by stage: claim the run attempt (or settle a copy), evaluate it (or resume
 * a wait from the facts it kept), take the pace turn, take a unit of the retry budget, act on
 * GitHub, record. Each stage is its own module; this one only says the order, and what a fault
 * undoes. Ordinary outcomes (a decision, a wait, a duplicate) are returned; only faults are thrown.
 */
import { RateLimitedError } from '../errors.js';
import { RepoApi } from '../github/repo-api.js';
import type { Decision, RunMessage } from '../model.js';
import { giveBackUnit, spendsBudget, takeUnit } from './budget-unit.js';
import { noteCallFailed, pauseForBreaker, releaseClaim, settleUnclaimed } from './claim.js';
import { decisionLine, type WorkerContext } from './context.js';
import { evaluateAfresh } from './evaluate.js';
import { readKeptFacts, resumeFromKept } from './kept-facts.js';
import { recordDecision, recordOutcome } from './record-decision.js';
import { act, type CallMarks } from './rerun-calls.js';
import type { RunResult } from './result.js';
import { takeTurn, waitForTurn } from './turn.js';

/**
 * Decides one run attempt: claim it, gather only the facts the decision asks for, re-run at
 * most once, record the outcome. A fault before the re-run call, or a rate limit on it, gives
 * the claim and the budget unit back and is rethrown, so the message is retried; after any other
 * fault of the call the claim stays for the reconciler, noted with the failure.
 */
export async function runDecision(msg: RunMessage, ctx: WorkerContext): Promise<RunResult> {
  const line = decisionLine(msg);
  const claim = await ctx.stores.attempts.claim(msg, ctx.owner, ctx.settings.leaseMs);
  if (!claim.claimed) return settleUnclaimed(msg, claim.existing, ctx, line);

  const { owner, name } = msg.repository;
  const api = new RepoApi(ctx.github.client(msg.installationId), owner, name, ctx.github.graphqlUrl);
  const marks: CallMarks = { sent: false, calling: false };
  let unitTaken = false;
  try {
    const kept = readKeptFacts(claim.kept);
    const judged = kept ? await resumeFromKept(msg, kept, api, ctx) : await evaluateAfresh(msg, api, ctx, line);
    // The attempt reports on the re-run before it, from its own verdicts (a resumed turn did so before its wait).
    if (!kept) await recordOutcome(msg, judged.verdicts, ctx, line);
    const { step } = judged;
    if (step.kind === 'wait') return await pauseForBreaker(msg, step, ctx, line);

    let decided: Decision;
    if (step.kind === 'final') decided = step;
    else {
      const turn = await takeTurn(msg.installationId, claim, ctx, msg.repository.id);
      // Once the wait is written the attempt is its waiting message's: nothing after it can fault.
      if (turn.kind === 'wait') return await waitForTurn(msg, judged, judged.priorRequests + api.requests, turn, ctx);
      if (turn.kind === 'final') decided = turn;
      else {
        const unit = await takeUnit(msg, ctx);
        if (!unit.taken) decided = unit;
        else {
          unitTaken = true;
          decided = await act(msg, judged, step, api, ctx, marks);
          if (!spendsBudget(decided.decision)) await giveBackUnit(msg, ctx, line);
        }
      }
    }
    return { kind: 'decided', outcome: await recordDecision(msg, judged, decided, api, ctx, line) };
  } catch (err) {
    // A rate-limited call was turned away before GitHub acted on it, so the claim goes back as
    // well; a re-decision that finds the run at a later attempt answers duplicate.
    const turnedAway = err instanceof RateLimitedError;
    if (!marks.sent || turnedAway) {
      await releaseClaim(msg, ctx, line);
      if (unitTaken) await giveBackUnit(msg, ctx, line);
    }
    if (marks.calling && !turnedAway) await noteCallFailed(msg, err, ctx, line);
    throw err;
  }
}
