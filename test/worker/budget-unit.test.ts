import { describe, expect, it } from 'vitest';
import type { RetryBudget } from '../../lib/ledger/budget.js';
import { attemptKey } from '../../lib/records.js';
import { giveBackUnit, spendsBudget, takeUnit } from '../../lib/worker/budget-unit.js';
import { decisionLine } from '../../lib/worker/context.js';
import { runMessage } from '../support/fixtures.js';
import { fakeWorld } from '../support/fakes/context.js';

describe('the budget unit', () => {
  it('is taken for the attempt while the hour has one left', async () => {
    const w = fakeWorld({ budgetPerHour: 2 });
    const msg = runMessage();
    expect(await takeUnit(msg, w.ctx)).toEqual({ taken: true });
    expect(w.budget.held(msg.installationId)).toEqual([attemptKey(msg.repository.id, msg.runId, msg.runAttempt)]);
  });

  it('refused when another worker took the hour’s last unit: budget_exhausted, with the usage in the reason', async () => {
    const w = fakeWorld({ budgetPerHour: 1 });
    const msg = runMessage();
    await w.budget.take(msg.installationId, 'another-run');
    expect(await takeUnit(msg, w.ctx)).toEqual({
      taken: false,
      decision: 'budget_exhausted',
      reason: 'installation retry budget spent: 1 of 1 this hour',
    });
    expect(w.budget.held(msg.installationId)).toEqual(['another-run']);
  });

  it('given back, it is free for the next run', async () => {
    const w = fakeWorld({ budgetPerHour: 1 });
    const [a, b] = [runMessage({ runId: 1 }), runMessage({ runId: 2 })];
    await takeUnit(a, w.ctx);
    await giveBackUnit(a, w.ctx, decisionLine(a));
    expect(await takeUnit(b, w.ctx)).toEqual({ taken: true });
    expect(w.budget.held(b.installationId)).toEqual([attemptKey(b.repository.id, b.runId, b.runAttempt)]);
  });

  it('a give-back that fails is logged and costs the hour a unit, never the decision', async () => {
    const w = fakeWorld({ budgetPerHour: 1 });
    const msg = runMessage();
    const budget: RetryBudget = {
      usage: (i) => w.budget.usage(i),
      take: (i, k) => w.budget.take(i, k),
      giveBack: () => Promise.reject(new Error('throttled')),
    };
    const broken = { ...w.ctx, stores: { ...w.ctx.stores, budget } };
    await expect(giveBackUnit(msg, broken, decisionLine(msg))).resolves.toBeUndefined();
    expect(w.log.named('could not give the retry budget its unit back')).toMatchObject([{ error: 'throttled' }]);
  });

  it('a re-run or a pull request put back in the merge queue keeps its unit; any other decision does not', () => {
    expect(['retried', 'retried_all', 'requeued'].map((d) => spendsBudget(d as never))).toEqual([true, true, true]);
    expect(['rerun_rejected', 'duplicate', 'expired'].map((d) => spendsBudget(d as never))).toEqual([
      false,
      false,
      false,
    ]);
  });
});
