/**
 * The unit of the retry budget a re-run spends: taken with a conditional write just before the
 * call, given back when nothing was re-run, kept when the call's outcome is unknown.
 */
import { budgetSpentReason } from '../decide/decide.js';
import { type Decision, type DecisionKind, isRerunDecision, type RunMessage } from '../model.js';
import { attemptKey } from '../records.js';
import type { DecisionLine, WorkerContext, WorkerStores } from './context.js';

/** What taking and giving back a unit reads: the retry budget's store and the log. */
export interface BudgetContext {
  readonly stores: Pick<WorkerStores, 'budget'>;
  readonly obs: Pick<WorkerContext['obs'], 'log'>;
}

/** A re-run, or a pull request put back in the merge queue, keeps its unit of the budget. */
export const spendsBudget = (decision: DecisionKind): boolean => isRerunDecision(decision) || decision === 'requeued';

/** Takes the attempt's unit, or answers `budget_exhausted` when another worker took the hour's last one. */
export async function takeUnit(
  msg: RunMessage,
  ctx: BudgetContext,
): Promise<{ readonly taken: true } | ({ readonly taken: false } & Decision)> {
  const unit = await ctx.stores.budget.take(
    msg.installationId,
    attemptKey(msg.repository.id, msg.runId, msg.runAttempt),
  );
  if (unit.taken) return unit;
  // Another worker took the hour's last unit after this one read the budget.
  return { taken: false, decision: 'budget_exhausted', reason: budgetSpentReason(unit) };
}

/** Nothing was re-run: the unit goes back. A write that fails costs the hour one unit, never the decision. */
export async function giveBackUnit(msg: RunMessage, ctx: BudgetContext, line: DecisionLine): Promise<void> {
  await ctx.stores.budget
    .giveBack(msg.installationId, attemptKey(msg.repository.id, msg.runId, msg.runAttempt))
    .catch((e: Error) =>
      ctx.obs.log.warn('could not give the retry budget its unit back', { ...line, error: e.message }),
    );
}
