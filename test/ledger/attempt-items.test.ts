import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldBy, keyOf, RERUN_IN, STORED_JOBS_LIMIT, writeDecision } from '../../lib/ledger/attempt-items.js';
import { STATE } from '../../lib/ledger/attributes.js';
import { keys } from '../../lib/ledger/keys.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { Table } from '../../lib/ledger/table.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { RERUN_DECISIONS, type RunMessage } from '../../lib/model.js';
import { TEXT_CAPS } from '../../lib/util/clip.js';
import { ledgerMessage } from './support.js';

const TABLE = 'attempt-items-test';
const T = Date.parse('2026-11-03T08:00:00Z');
let dynamo: EmbeddedDynamo;
let table: Table;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
  table = new Table(dynamo.client, TABLE);
});
afterAll(async () => dynamo.close());

const msg = (runId: number): RunMessage => ledgerMessage(runId, { runAttempt: 2 });

describe('what every writer of a run attempt shares', () => {
  it('a message’s key is its repository’s run attempt', () => {
    expect(keyOf(msg(5))).toEqual(keys.runAttempt(9, 5, 2));
  });

  it('the re-run decisions as one expression, a placeholder for each', () => {
    expect(Object.values(RERUN_IN.values)).toEqual([...RERUN_DECISIONS]);
    for (const name of Object.keys(RERUN_IN.values)) expect(RERUN_IN.expression).toContain(name);
  });

  it('heldBy: the owner’s claim, or with a lease the very claim read, or a wait', () => {
    expect(heldBy('w')).toEqual({
      expression: '#state = :held AND #owner = :owner',
      values: { ':held': STATE.claimed, ':owner': 'w' },
    });
    expect(heldBy('w', 5, STATE.waiting).values).toEqual({ ':held': STATE.waiting, ':owner': 'w', ':lease': 5 });
  });

  it('writeDecision writes only while the claim holds, with its reason and job names capped and the jobs bounded', async () => {
    const ledger = openLedger(dynamo.client, TABLE, () => T);
    await ledger.attempts.claim(msg(1), 'w', 60_000);
    const jobs = Array.from({ length: STORED_JOBS_LIMIT + 7 }, (_, i) => ({ name: `${'j'.repeat(300)}${i}`, id: i }));
    const decision = {
      decision: 'retried' as const,
      reason: 'r'.repeat(5_000),
      details: { jobs, workflow: 'w'.repeat(300) },
    };
    expect(await writeDecision(table, T + 1, keyOf(msg(1)), heldBy('other'), decision)).toBe(false);
    expect(await writeDecision(table, T + 1, keyOf(msg(1)), heldBy('w'), decision)).toBe(true);
    const stored = (await ledger.attempts.get(9, 1, 2))!;
    expect(stored).toMatchObject({ state: 'decided', decision: 'retried', decidedAt: T + 1 });
    expect(stored.reason!.length).toBeLessThanOrEqual(TEXT_CAPS.reason);
    const details = stored.details as { jobs: { name: string; id: number }[]; jobsOmitted: number; workflow: string };
    expect(details.jobs).toHaveLength(STORED_JOBS_LIMIT);
    expect(details.jobsOmitted).toBe(7);
    expect(details.jobs[0]!.id).toBe(0);
    expect(details.jobs.every((j) => j.name.length <= TEXT_CAPS.name)).toBe(true);
    expect(details.workflow.length).toBeLessThanOrEqual(TEXT_CAPS.name);
    // Decided: the claim no longer holds, so a second decision is refused.
    expect(await writeDecision(table, T + 2, keyOf(msg(1)), heldBy('w'), decision)).toBe(false);
  });

  it('the facts kept for a wait are spent with the decision', async () => {
    const ledger = openLedger(dynamo.client, TABLE, () => T);
    await ledger.attempts.claim(msg(2), 'w', 60_000);
    await ledger.attempts.wait(msg(2), 'w', T, T, 60_000, 'kept facts');
    const taken = await ledger.attempts.claim(msg(2), 'turn', 60_000);
    expect(taken).toMatchObject({ claimed: true, kept: 'kept facts' });
    await writeDecision(table, T, keyOf(msg(2)), heldBy('turn'), {
      decision: 'genuine_failure',
      reason: 'x',
      details: {},
    });
    expect((await ledger.attempts.get(9, 2, 2))?.kept).toBeUndefined();
  });
});
