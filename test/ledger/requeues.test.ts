import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lib/ledger/keys.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { Table } from '../../lib/ledger/table.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';

const TABLE = 'requeues-test';
let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo.close());

const head = 'a'.repeat(40);
const ref = (pullRequest: number, groupSha: string, headSha = head) => ({ repoId: 7, pullRequest, headSha, groupSha });

describe('the merge-queue loop guard in the ledger', () => {
  it('lets one head be queued again max_requeues times, then answers cap', async () => {
    const ledger = openLedger(dynamo.client, TABLE);
    expect(await ledger.requeues.claim(ref(1, 'g1'.padEnd(40, '0')), 1)).toBe('claimed');
    expect(await ledger.requeues.claim(ref(1, 'g2'.padEnd(40, '0')), 1)).toBe('cap');
    // A new head of the same pull request starts its own count.
    expect(await ledger.requeues.claim(ref(1, 'g3'.padEnd(40, '0'), 'b'.repeat(40)), 1)).toBe('claimed');
  });

  it('counts a merge group once, whichever of its runs asks', async () => {
    const ledger = openLedger(dynamo.client, TABLE);
    const group = 'c'.repeat(40);
    expect(await ledger.requeues.claim(ref(2, group), 2)).toBe('claimed');
    expect(await ledger.requeues.claim(ref(2, group), 2)).toBe('group_handled');
    expect(await ledger.requeues.claim(ref(2, 'd'.repeat(40)), 2)).toBe('claimed');
    expect(await ledger.requeues.claim(ref(2, 'e'.repeat(40)), 2)).toBe('cap');
  });

  it('gives one of many concurrent claims of the same group the right to send', async () => {
    const ledger = openLedger(dynamo.client, TABLE);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => ledger.requeues.claim(ref(3, 'f'.repeat(40)), 1)),
    );
    expect(answers.filter((a) => a === 'claimed')).toHaveLength(1);
    expect(answers.filter((a) => a === 'group_handled')).toHaveLength(7);
  });

  it('takes a released claim back, so the retry of a rate-limited mutation may send it', async () => {
    const ledger = openLedger(dynamo.client, TABLE);
    const r = ref(4, '1'.repeat(40));
    expect(await ledger.requeues.claim(r, 1)).toBe('claimed');
    await ledger.requeues.release(r);
    expect(await ledger.requeues.claim(r, 1)).toBe('claimed');
  });

  it('keeps every item it writes under a TTL', async () => {
    const now = Date.parse('2026-12-03T12:00:00Z');
    const ledger = openLedger(dynamo.client, TABLE, () => now);
    const r = ref(5, '2'.repeat(40));
    await ledger.requeues.claim(r, 1);
    const table = new Table(dynamo.client, TABLE);
    const items = [keys.requeueHead(7, 5, head), keys.requeueGroup(7, 5, r.groupSha)];
    for (const key of items) {
      const item = await table.get<{ ttl: number }>(key, true);
      expect(item?.ttl).toBe(Math.floor(now / 1000) + 35 * 86_400);
    }
  });
});
