import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lib/ledger/keys.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { Table } from '../../lib/ledger/table.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RunMessage } from '../../lib/model.js';

const TABLE = 'table-test';
let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo.close());

const ttl = 4_102_444_800;

const runMsg = (runId: number): RunMessage => ({
  v: 1,
  deliveryId: `d-${runId}`,
  installationId: 1,
  repository: { id: 9, owner: 'acme', name: 'web' },
  runId,
  runAttempt: 1,
  workflow: { id: 1, name: 'ci', path: null },
  event: 'push',
  headSha: 'abc',
  headBranch: 'main',
  conclusion: 'failure',
  pullRequests: [],
});

describe('the conditional-write helper', () => {
  it('answers true when the condition holds and false when DynamoDB refuses it, for put, update and delete', async () => {
    const table = new Table(dynamo.client, TABLE);
    const key = keys.redelivery('cond-1');
    const item = { ...key, ttl };
    const absent = { expression: 'attribute_not_exists(#pk)' };
    expect(await table.putIf(item, absent)).toBe(true);
    expect(await table.putIf(item, absent)).toBe(false);

    const once = { expression: 'attribute_not_exists(#outcome)' };
    expect(await table.updateIf(key, 'SET #outcome = :o', { ':o': 'first' }, once)).toBe(true);
    expect(await table.updateIf(key, 'SET #outcome = :o', { ':o': 'second' }, once)).toBe(false);
    expect(await table.get(key, true)).toMatchObject({ outcome: 'first' });

    const second = { expression: '#outcome = :o', values: { ':o': 'second' } };
    expect(await table.deleteIf(key, second)).toBe(false);
    expect(await table.deleteIf(key, { expression: '#outcome = :o', values: { ':o': 'first' } })).toBe(true);
    expect(await table.get(key, true)).toBeUndefined();
  });

  it('rethrows any other fault', async () => {
    const missing = new Table(dynamo.client, 'no-such-table');
    await expect(
      missing.putIf({ ...keys.redelivery('x'), ttl }, { expression: 'attribute_not_exists(#pk)' }),
    ).rejects.toThrow(/non-existent table|not found/i);
  });

  it('refuses an update whose condition gives one of its placeholders another value, before sending it', async () => {
    const table = new Table(dynamo.client, TABLE);
    const key = keys.redelivery('shadowed');
    await table.putIf({ ...key, ttl, outcome: 'a' }, { expression: 'attribute_not_exists(#pk)' });
    const held = { expression: '#outcome = :o', values: { ':o': 'a' } };
    await expect(table.updateIf(key, 'SET #outcome = :o', { ':o': 'b' }, held)).rejects.toThrow(/:o two values/);
    expect(await table.updateIf(key, 'SET #outcome = :n', { ':n': 'b' }, held)).toBe(true);
  });

  it('refuses an expression that names an attribute the table does not define, before sending it', async () => {
    const table = new Table(dynamo.client, TABLE);
    await expect(
      table.putIf({ ...keys.redelivery('typo'), ttl }, { expression: 'attribute_not_exists(#pkk)' }),
    ).rejects.toThrow(/unknown attribute: #pkk/);
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
