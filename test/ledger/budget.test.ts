import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';

const TABLE = 'budget-test';
const MINUTE = 60_000;

describe('retry budget (per installation, rolling hour)', () => {
  let dynamo: EmbeddedDynamo;
  let ledger: Ledger;
  let now = Date.parse('2026-12-02T10:00:00Z');
  const clock = () => now;
  beforeAll(async () => {
    dynamo = await startDynamo({ table: TABLE });
    ledger = openLedger(dynamo.client, TABLE, clock);
  });
  afterAll(async () => dynamo.close());

  const itemsOf = async (pk: string) =>
    (
      await DynamoDBDocumentClient.from(dynamo.client).send(
        new ScanCommand({ TableName: TABLE, FilterExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }),
      )
    ).Items ?? [];

  it("one repository holds at most its share of the hour: another repository's run still takes a unit", async () => {
    const budget = ledger.budget(4, 0.5);
    expect(await budget.take(111, '7#1#1')).toEqual({ taken: true });
    expect(await budget.take(111, '7#2#1')).toEqual({ taken: true });
    // Repository 7 holds its two of four: its third run is refused, though the hour has units left.
    expect(await budget.take(111, '7#3#1')).toEqual({
      taken: false,
      limit: 4,
      used: 2,
      repository: { limit: 2, used: 2 },
    });
    expect(await budget.usage(111, 7)).toEqual({ limit: 4, used: 2, repository: { limit: 2, used: 2 } });
    expect(await budget.usage(111, 8)).toEqual({ limit: 4, used: 2, repository: { limit: 2, used: 0 } });
    expect(await budget.take(111, '8#1#1')).toEqual({ taken: true });
    // A repeat of a unit already held is no new take, even at the share.
    expect(await budget.take(111, '7#2#1')).toEqual({ taken: true });
    // A share rounds up, and is one unit at least.
    expect((await ledger.budget(3, 0.5).usage(112, 7)).repository).toEqual({ limit: 2, used: 0 });
    expect((await ledger.budget(1, 0.01).usage(112, 7)).repository).toEqual({ limit: 1, used: 0 });
    expect(() => ledger.budget(4, 0)).toThrow(/share must be in \(0, 1\]/);
  });

  it('counts re-runs per installation: spending one installation leaves another untouched', async () => {
    const budget = ledger.budget(2);
    expect(await budget.take(101, 'r#1#1')).toEqual({ taken: true });
    expect(await budget.take(101, 'r#2#1')).toEqual({ taken: true });
    expect(await budget.take(101, 'r#3#1')).toMatchObject({ taken: false, limit: 2, used: 2 });
    expect(await budget.usage(101)).toEqual({ limit: 2, used: 2 });
    expect(await budget.usage(102)).toEqual({ limit: 2, used: 0 });
    expect(await budget.usage(null)).toEqual({ limit: 2, used: 0 });
  });

  it('refills by itself as the window moves: only re-runs of the last hour count', async () => {
    const budget = ledger.budget(3);
    const start = now;
    await budget.take(201, 'a');
    now = start + 10 * MINUTE;
    await budget.take(201, 'b');
    now = start + 20 * MINUTE;
    await budget.take(201, 'c');
    const usedAt = async (minutes: number) => {
      now = start + minutes * MINUTE;
      return (await budget.usage(201)).used;
    };
    expect([await usedAt(30), await usedAt(61), await usedAt(71), await usedAt(81)]).toEqual([3, 2, 1, 0]);
    // Spent at 30 minutes; a unit is free again once the first one is an hour old.
    now = start + 30 * MINUTE;
    expect(await budget.take(201, 'd')).toMatchObject({ taken: false });
    now = start + 61 * MINUTE;
    expect(await budget.take(201, 'd')).toEqual({ taken: true });
    now = start;
  });

  it('keeps the hour in one item per installation, with a TTL of two hours, one unit per run attempt', async () => {
    const budget = ledger.budget(5);
    await budget.take(301, 'repo#run#1');
    // The same attempt asking again (its message redelivered) holds one unit, not two.
    await budget.take(301, 'repo#run#1');
    const items = await DynamoDBDocumentClient.from(dynamo.client).send(
      new ScanCommand({
        TableName: TABLE,
        FilterExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'BUDGET#301' },
      }),
    );
    expect(items.Items).toHaveLength(1);
    expect(items.Items?.[0]).toMatchObject({
      spends: [{ k: 'repo#run#1', at: now }],
      ttl: Math.floor(now / 1000) + 7200,
    });
    expect(await budget.usage(301)).toEqual({ limit: 5, used: 1 });
  });

  it('a unit given back is free again; giving back one never taken changes nothing', async () => {
    const budget = ledger.budget(1);
    expect(await budget.take(302, 'a')).toEqual({ taken: true });
    expect(await budget.take(302, 'b')).toMatchObject({ taken: false });
    await budget.giveBack(302, 'never-taken');
    expect(await budget.usage(302)).toEqual({ limit: 1, used: 1 });
    await budget.giveBack(302, 'a');
    expect(await budget.usage(302)).toEqual({ limit: 1, used: 0 });
    expect(await budget.take(302, 'b')).toEqual({ taken: true });
  });

  it.each([-1, 1.5, Number.NaN, 5_001])('refuses a limit of %s with a clear error', (limit) => {
    expect(() => ledger.budget(limit)).toThrow(/whole number ≥ 0 and ≤ 5000/);
  });

  it('0 turns the budget off: every take is granted, the usage reads 0 of 0, and no item is written', async () => {
    const budget = ledger.budget(0);
    for (let i = 0; i < 3; i++) expect(await budget.take(402, `x${i}`)).toEqual({ taken: true });
    await budget.giveBack(402, 'x0');
    expect(await budget.usage(402)).toEqual({ limit: 0, used: 0 });
    expect(await itemsOf('BUDGET#402')).toEqual([]);
  });

  it('concurrent takes of one installation in two processes grant exactly the limit, never more', async () => {
    const processes = [0, 1].map(() => openLedger(dynamo.client, TABLE, clock).budget(5));
    const takes = await Promise.all(
      processes.flatMap((budget, p) => Array.from({ length: 6 }, (_, i) => budget.take(403, `p${p}#${i}`))),
    );
    expect(takes.filter((t) => t.taken)).toHaveLength(5);
    expect(takes.filter((t) => !t.taken)).toHaveLength(7);
    expect(await ledger.budget(5).usage(403)).toEqual({ limit: 5, used: 5 });
  });
});
