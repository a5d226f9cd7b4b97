import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, TTL } from '../../lib/ledger/keys.js';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { Table } from '../../lib/ledger/table.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RunMessage } from '../../lib/model.js';
import { ledgerMessage } from './support.js';

const TABLE = 'run-attempts-test';
let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo.close());

const runMsg = (runId: number): RunMessage => ledgerMessage(runId, { installationId: 1 });

describe('a claim (one owner per run attempt)', () => {
  const T = Date.parse('2026-11-03T08:00:00Z');
  let now = T;
  let ledger: Ledger;
  beforeAll(() => {
    ledger = openLedger(dynamo.client, TABLE, () => now);
  });

  it('the first claim wins; another owner is told who holds it, the record and its TTL as written', async () => {
    now = T;
    const msg = runMsg(100);
    expect(await ledger.attempts.claim(msg, 'first', 60_000)).toEqual({ claimed: true });
    const other = await ledger.attempts.claim(msg, 'second', 60_000);
    expect(other).toMatchObject({ claimed: false, existing: { state: 'claimed', owner: 'first' } });
    const stored = await new Table(dynamo.client, TABLE).get<Record<string, unknown>>(keys.runAttempt(9, 100, 1), true);
    expect(stored).toMatchObject({
      state: 'claimed',
      owner: 'first',
      claimedAt: T,
      leaseUntil: T + 60_000,
      repository: 'acme/web',
      runId: 100,
      runAttempt: 1,
      installationId: 1,
      message: JSON.stringify(msg),
      ttl: Math.floor(T / 1000) + TTL.runAttempt,
    });
  });

  it('a waiting attempt is not taken over before its slot', async () => {
    now = T;
    const msg = runMsg(101);
    await ledger.attempts.claim(msg, 'waited', 60_000);
    expect(await ledger.attempts.wait(msg, 'waited', T + 10_000, T, 60_000, 'facts')).toBe(true);
    now = T + 9_999;
    expect(await ledger.attempts.claim(msg, 'early', 60_000)).toMatchObject({
      claimed: false,
      existing: { state: 'waiting', owner: 'waited', slotAt: T + 10_000, kept: 'facts', leaseUntil: T + 70_000 },
    });
  });

  it('only the owner turns its claim into a wait; an unreserved wait is marked, a reserved one is not', async () => {
    now = T;
    const msg = runMsg(102);
    await ledger.attempts.claim(msg, 'w', 60_000);
    expect(await ledger.attempts.wait(msg, 'other', T + 1_000, T, 60_000)).toBe(false);
    expect(await ledger.attempts.wait(msg, 'w', T + 1_000, T, 60_000, undefined, true)).toBe(true);
    expect(await ledger.attempts.get(9, 102, 1)).toMatchObject({ state: 'waiting', unreserved: true });
    now = T + 1_000;
    const taken = await ledger.attempts.claim(msg, 'turn', 60_000);
    expect(taken).toEqual({ claimed: true, slotAt: T + 1_000, unreserved: true, waitingSince: T });
    expect(await ledger.attempts.wait(msg, 'turn', T + 2_000, T, 60_000)).toBe(true);
    expect((await ledger.attempts.get(9, 102, 1))?.unreserved).toBeUndefined();
  });

  it('a failed call is noted on the owner’s claim only', async () => {
    now = T;
    const msg = runMsg(103);
    await ledger.attempts.claim(msg, 'w', 60_000);
    expect(await ledger.attempts.noteCallFailed(msg, 'other', '502')).toBe(false);
    expect(await ledger.attempts.noteCallFailed(msg, 'w', '502')).toBe(true);
    expect(await ledger.attempts.get(9, 103, 1)).toMatchObject({ state: 'claimed', callError: '502' });
  });

  it('a claim released by its owner may be claimed again; another owner cannot release it', async () => {
    now = T;
    const msg = runMsg(104);
    await ledger.attempts.claim(msg, 'w', 60_000);
    expect(await ledger.attempts.release(msg, 'other')).toBe(false);
    expect(await ledger.attempts.release(msg, 'w')).toBe(true);
    expect(await ledger.attempts.get(9, 104, 1)).toBeUndefined();
    expect(await ledger.attempts.claim(msg, 'again', 60_000)).toEqual({ claimed: true });
  });

  it('a decided attempt keeps its decision: it is never finalised twice nor released', async () => {
    now = T + 5;
    const msg = runMsg(105);
    await ledger.attempts.claim(msg, 'w', 60_000);
    expect(await ledger.attempts.finalise(msg, 'w', 'retried', 'lost runner', { jobs: [{ name: 'build' }] })).toBe(
      true,
    );
    expect(await ledger.attempts.finalise(msg, 'w', 'genuine_failure', 'again')).toBe(false);
    expect(await ledger.attempts.release(msg, 'w')).toBe(false);
    expect(await ledger.attempts.claim(msg, 'late', 60_000)).toMatchObject({ claimed: false });
    expect(await ledger.attempts.get(9, 105, 1)).toMatchObject({
      state: 'decided',
      decision: 'retried',
      reason: 'lost runner',
      decidedAt: T + 5,
      details: { jobs: [{ name: 'build' }] },
    });
  });
});

describe('a waiting attempt taken over at its turn', () => {
  it('belongs to the worker that took it: that worker records the decision, the one that waited no longer can', async () => {
    let now = Date.parse('2026-10-02T16:30:00Z');
    const ledger = openLedger(dynamo.client, TABLE, () => now);
    const msg = { ...runMsg(1), repository: { id: 10, owner: 'acme', name: 'web' } };
    await ledger.attempts.claim(msg, 'waited', 60_000);
    expect(await ledger.attempts.wait(msg, 'waited', now + 5_000, now, 60_000)).toBe(true);
    now += 5_000;
    expect(await ledger.attempts.claim(msg, 'turn', 60_000)).toMatchObject({ claimed: true, slotAt: now });
    expect(await ledger.attempts.get(10, 1, 1)).toMatchObject({ state: 'claimed', owner: 'turn' });
    expect(await ledger.attempts.finalise(msg, 'waited', 'retried', 'x')).toBe(false);
    expect(await ledger.attempts.finalise(msg, 'turn', 'retried', 'x')).toBe(true);
  });
});

describe('forced release (reprise replay --force)', () => {
  const msg = runMsg;

  it('gives back a decision that re-ran nothing, never one that re-ran the run', async () => {
    const ledger = openLedger(dynamo.client, TABLE);
    for (const [runId, decision] of [
      [1, 'genuine_failure'],
      [2, 'retried'],
      [3, 'retried_all'],
    ] as const) {
      await ledger.attempts.claim(msg(runId), 'w', 60_000);
      await ledger.attempts.finalise(msg(runId), 'w', decision, 'test');
    }
    const seen = async (runId: number) => (await ledger.attempts.get(9, runId, 1))!;
    expect(await ledger.attempts.forceRelease(msg(1), await seen(1))).toBe(true);
    expect(await ledger.attempts.forceRelease(msg(2), await seen(2))).toBe(false);
    expect(await ledger.attempts.forceRelease(msg(3), await seen(3))).toBe(false);
    expect(await ledger.attempts.get(9, 1, 1)).toBeUndefined();
    expect((await ledger.attempts.get(9, 2, 1))?.decision).toBe('retried');
  });

  it('deletes only the record that was read: a claim made since is kept', async () => {
    const ledger = openLedger(dynamo.client, TABLE);
    await ledger.attempts.claim(msg(4), 'w', 60_000);
    const read = (await ledger.attempts.get(9, 4, 1))!;
    expect(await ledger.attempts.forceRelease(msg(4), { ...read, claimedAt: read.claimedAt - 1 })).toBe(false);
    expect(await ledger.attempts.forceRelease(msg(4), read)).toBe(true);
  });
});
