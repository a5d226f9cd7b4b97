import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, TTL } from '../../lib/ledger/keys.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { Table } from '../../lib/ledger/table.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';

const TABLE = 'deliveries-test';
const T = Date.parse('2026-11-03T08:00:00Z');
let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo.close());

describe('deliveries the intake accepted', () => {
  it('a GUID is unseen until marked, then seen; the mark keeps its event, its time and its TTL', async () => {
    const deliveries = openLedger(dynamo.client, TABLE, () => T).deliveries;
    expect(await deliveries.isSeen('g-1')).toBe(false);
    await deliveries.markSeen('g-1', 'workflow_run');
    expect(await deliveries.isSeen('g-1')).toBe(true);
    expect(await deliveries.isSeen('g-2')).toBe(false);
    expect(await new Table(dynamo.client, TABLE).get(keys.delivery('g-1'), true)).toMatchObject({
      event: 'workflow_run',
      seenAt: T,
      ttl: Math.floor(T / 1000) + TTL.delivery,
    });
  });
});
