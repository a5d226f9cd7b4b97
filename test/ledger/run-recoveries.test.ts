import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RecoveryMessage } from '../../lib/model.js';

const TABLE = 'run-recoveries-test';
const T = Date.parse('2026-11-03T08:00:00Z');
let dynamo: EmbeddedDynamo;
let ledger: Ledger;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
  ledger = openLedger(dynamo.client, TABLE, () => T);
});
afterAll(async () => dynamo.close());

const end = {
  at: new Date(T).toISOString(),
  lostAt: new Date(T - 60_000).toISOString(),
  runnerName: 'r-1',
  reason: 'spot',
};
const request: RecoveryMessage = {
  v: 1,
  kind: 'recovery',
  installationId: 1,
  repository: { id: 9, owner: 'acme', name: 'web' },
  runId: 70,
  jobId: 7,
  runnerName: 'r-1',
  trigger: 'signal',
};

describe('early recovery’s records', () => {
  it('an attempt’s end is claimed once, by whichever worker comes first, and settles with GitHub’s answer', async () => {
    const ref = { repoId: 9, runId: 70, runAttempt: 1 };
    expect(await ledger.recoveries.endOf(ref)).toBeUndefined();
    expect(await ledger.recoveries.claimEnd(ref, end)).toBe(true);
    expect(await ledger.recoveries.claimEnd(ref, end)).toBe(false);
    expect(await ledger.recoveries.endOf(ref)).toMatchObject({ status: 'sending', calls: 0, runnerName: 'r-1' });
    await ledger.recoveries.settleEnd(ref, 'accepted', 2);
    expect(await ledger.recoveries.endOf(ref)).toMatchObject({ status: 'accepted', calls: 2 });
    // Another attempt of the run is another end.
    expect(await ledger.recoveries.claimEnd({ ...ref, runAttempt: 2 }, end)).toBe(true);
  });

  it('an end given back unsent may be claimed again', async () => {
    const ref = { repoId: 9, runId: 71, runAttempt: 1 };
    expect(await ledger.recoveries.claimEnd(ref, end)).toBe(true);
    await ledger.recoveries.releaseEnd(ref);
    expect(await ledger.recoveries.endOf(ref)).toBeUndefined();
    expect(await ledger.recoveries.claimEnd(ref, end)).toBe(true);
  });

  it('a run waiting for its healthy jobs keeps its request until the wait stops', async () => {
    expect(await ledger.recoveries.waiting(9, 70)).toBeUndefined();
    await ledger.recoveries.awaitSiblings(request);
    expect(await ledger.recoveries.waiting(9, 70)).toMatchObject({ runId: 70, jobId: 7, trigger: 'signal' });
    await ledger.recoveries.stopWaiting(9, 70);
    expect(await ledger.recoveries.waiting(9, 70)).toBeUndefined();
  });
});
