import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { freshTable } from '../signals/fixtures.js';

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: 'unused' });
});
afterAll(async () => {
  await dynamo?.close();
});

describe('eksListings: each EKS cluster the EC2 signal last asked, for reprise status', () => {
  it('keeps the latest outcome per cluster, a failure with its cause, and lists them all', async () => {
    const { table, items } = await freshTable(dynamo);
    let now = Date.parse('2026-10-02T16:13:05Z');
    const store = openLedger(dynamo.client, table, () => now).eksListings;
    await store.record('runners', { cause: '403 pods is forbidden', status: 403, instanceId: 'i-0aaaaaaaaaaaaaaaa' });
    await store.record('gpu', undefined);
    expect((await store.list()).sort((a, b) => a.cluster.localeCompare(b.cluster))).toEqual([
      { cluster: 'gpu', at: now, ok: true },
      {
        cluster: 'runners',
        at: now,
        ok: false,
        cause: '403 pods is forbidden',
        status: 403,
        instanceId: 'i-0aaaaaaaaaaaaaaaa',
      },
    ]);
    now += 60_000;
    await store.record('runners', undefined);
    expect((await store.list()).find((l) => l.cluster === 'runners')).toEqual({
      cluster: 'runners',
      at: now,
      ok: true,
    });
    // One item per cluster, each with its TTL.
    const kept = await items();
    expect(kept).toHaveLength(2);
    for (const item of kept) expect(item.ttl).toBe(Math.floor((item.at as number) / 1000) + 7 * 86400);
  });
});
