import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredAttempt } from '../../lib/ledger/attributes.js';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { CALL_FAILED_RELEASES, type ReconcileStore } from '../../lib/ledger/reconcile-store.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RunMessage } from '../../lib/model.js';
import { ledgerMessage } from './support.js';

const TABLE = 'reconcile-store-test';
const T = Date.parse('2026-11-03T08:00:00Z');
let dynamo: EmbeddedDynamo;
let now = T;
let ledger: Ledger;
let store: ReconcileStore;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
  ledger = openLedger(dynamo.client, TABLE, () => now);
  store = ledger.reconcile(() => now);
});
afterAll(async () => dynamo.close());

const runMsg = (runId: number): RunMessage => ledgerMessage(runId, { installationId: 1 });

/** Every item a scan answers, all pages, `limit` items read a page. */
async function all(
  scan: (start: Record<string, unknown> | undefined) => Promise<{ items: StoredAttempt[]; next?: object }>,
): Promise<StoredAttempt[]> {
  const out: StoredAttempt[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await scan(start);
    out.push(...page.items);
    start = page.next as Record<string, unknown> | undefined;
  } while (start);
  return out;
}

const held = async (runId: number) => (await all((s) => store.scanHeld(s, 2))).find((r) => r.runId === runId)!;

describe('the reconciler’s cursors', () => {
  it('a cursor never saved is undefined; a saved one reads back as plain JSON, unset fields dropped', async () => {
    expect(await store.cursor('none')).toBeUndefined();
    await store.saveCursor('sweep', { page: { pk: 'RUN#1' }, left: undefined, n: 3 });
    expect(await store.cursor('sweep')).toEqual({ page: { pk: 'RUN#1' }, n: 3 });
    await store.saveCursor('sweep', { n: 4 });
    expect(await store.cursor('sweep')).toEqual({ n: 4 });
  });
});

describe('the sweeps’ scans of run attempts', () => {
  const ids = (items: StoredAttempt[]) => items.map((r) => r.runId).sort((a, b) => a - b);
  beforeAll(async () => {
    now = T;
    // 1: a claim whose lease ends; 2: a live claim; 3: a wait whose lease ends; 4: a re-run;
    // 5: a genuine failure; 6: a re-run the sweep follows up; 7: a re-run decided after the bound.
    for (const runId of [1, 3, 4, 5, 6, 7]) await ledger.attempts.claim(runMsg(runId), 'w', 1_000);
    await ledger.attempts.claim(runMsg(2), 'w', 600_000);
    await ledger.attempts.wait(runMsg(3), 'w', T + 500, T, 1_000);
    await ledger.attempts.finalise(runMsg(4), 'w', 'retried', 'lost');
    await ledger.attempts.finalise(runMsg(5), 'w', 'genuine_failure', 'red');
    await ledger.attempts.finalise(runMsg(6), 'w', 'retried_all', 'lost');
    now = T + 60_000;
    await ledger.attempts.finalise(runMsg(7), 'w', 'retried', 'lost');
    now = T + 5_000;
  });

  it('scanAttempts: claims and waits whose lease ended, and re-runs decided before the bound not yet followed up', async () => {
    const first = await all((s) => store.scanAttempts(s, 3, T + 30_000));
    expect(ids(first)).toEqual([1, 3, 4, 6]);
    const sixth = first.find((r) => r.runId === 6)!;
    expect(await store.markFollowUp(sixth, 'completed', 'green')).toBe(true);
    expect(await store.markFollowUp(sixth, 'superseded', 'red')).toBe(false);
    expect(ids(await all((s) => store.scanAttempts(s, 3, T + 30_000)))).toEqual([1, 3, 4]);
    expect(await ledger.attempts.get(9, 6, 1)).toMatchObject({
      followUp: 'completed',
      followUpDetail: 'green',
      followUpAt: T + 5_000,
    });
  });

  it('a follow-up is marked on a decided attempt only', async () => {
    expect(await store.markFollowUp(await held(1), 'completed', 'x')).toBe(false);
  });

  it('scanHeld: every claimed or waiting attempt, whatever its lease; never a decided one', async () => {
    expect(ids(await all((s) => store.scanHeld(s, 2)))).toEqual([1, 2, 3]);
  });
});

describe('an orphaned claim, settled only while it is the claim the sweep read', () => {
  it('recordOrphan writes the decision for the claim read; a claim since taken over is left alone', async () => {
    now = T;
    await ledger.attempts.claim(runMsg(20), 'dead', 1_000);
    const read = await held(20);
    expect(await store.recordOrphan({ ...read, leaseUntil: read.leaseUntil + 1 }, 'retried', 'x', {})).toBe(false);
    now = T + 2_000;
    expect(await store.recordOrphan(read, 'retried', 'call went through', { jobs: [] })).toBe(true);
    expect(await ledger.attempts.get(9, 20, 1)).toMatchObject({
      state: 'decided',
      decision: 'retried',
      reason: 'call went through',
      decidedAt: T + 2_000,
    });
    expect(await store.recordOrphan(read, 'retried', 'again', {})).toBe(false);
  });

  it('releaseOrphan deletes the claim read, and restoreClaim puts it back once, its TTL kept', async () => {
    now = T;
    await ledger.attempts.claim(runMsg(21), 'dead', 1_000);
    const read = await held(21);
    expect(await store.releaseOrphan({ ...read, owner: 'someone else' })).toBe(false);
    expect(await store.releaseOrphan(read)).toBe(true);
    expect(await ledger.attempts.get(9, 21, 1)).toBeUndefined();
    expect(await store.restoreClaim(read)).toBe(true);
    expect(await store.restoreClaim(read)).toBe(false);
    expect(await held(21)).toEqual(read);
  });

  it(`markReclaim: the first claim released, that one again, and no other unless its call failed (${CALL_FAILED_RELEASES} at most)`, async () => {
    now = T;
    await ledger.attempts.claim(runMsg(22), 'a', 1_000);
    const a = await held(22);
    expect(await store.markReclaim(a, 9)).toBe(true);
    expect(await store.markReclaim(a, 9)).toBe(true);
    const b = { ...a, owner: 'b' };
    expect(await store.markReclaim(b, 9)).toBe(false);
    const failing = { ...a, owner: 'c', callError: '502' };
    // The release counter already holds the two marks of `a`: one more call-failed release is allowed.
    expect(await store.markReclaim(failing, 9)).toBe(true);
    expect(await store.markReclaim({ ...failing, owner: 'd' }, 9)).toBe(false);
  });
});

describe('redeliveries the sweep asks GitHub for', () => {
  it('one claim per delivery GUID; a released claim may be taken again; an outcome is noted only on a claim', async () => {
    now = T;
    expect(await store.noteRedelivery('g-1', 'ok')).toBe(false);
    expect(await store.claimRedelivery('g-1', 501)).toBe(true);
    expect(await store.claimRedelivery('g-1', 501)).toBe(false);
    await store.releaseRedelivery('g-1');
    expect(await store.claimRedelivery('g-1', 502)).toBe(true);
    expect(await store.noteRedelivery('g-1', 'ok')).toBe(true);
  });
});
