import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RunMessage } from '../../lib/model.js';
import { ledgerMessage } from './support.js';

const TABLE = 'decision-log-test';
const T = Date.parse('2026-11-03T08:00:00Z');
let dynamo: EmbeddedDynamo;
let now = T;
let ledger: Ledger;

const msg = (runId: number, repo: string): RunMessage => {
  const [owner, name] = repo.split('/') as [string, string];
  return ledgerMessage(runId, { repository: { id: runId, owner, name } });
};

beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
  ledger = openLedger(dynamo.client, TABLE, () => now);
  for (let runId = 1; runId <= 60; runId++) {
    now = T + runId * 1_000;
    const m = msg(runId, runId % 2 ? 'acme/odd' : 'acme/even');
    await ledger.attempts.claim(m, 'w', 60_000);
    await ledger.attempts.finalise(m, 'w', 'genuine_failure', 'red');
  }
  await ledger.attempts.claim(msg(99, 'acme/odd'), 'w', 60_000); // held, not decided
});
afterAll(async () => dynamo.close());

describe('the decision listing', () => {
  it('lists decided attempts newest first, 50 unless told, never one still held', async () => {
    const all = await ledger.decisions.list();
    expect(all).toHaveLength(50);
    expect(all.map((r) => r.runId).slice(0, 3)).toEqual([60, 59, 58]);
    expect((await ledger.decisions.list({ limit: 100 })).map((r) => r.runId)).not.toContain(99);
    expect(await ledger.decisions.list({ limit: 100 })).toHaveLength(60);
  });

  it('narrows to a repository and to decisions since a time', async () => {
    const odd = await ledger.decisions.list({ repository: 'acme/odd', sinceMs: T + 51_000, limit: 100 });
    expect(odd.map((r) => r.runId)).toEqual([59, 57, 55, 53, 51]);
  });
});
