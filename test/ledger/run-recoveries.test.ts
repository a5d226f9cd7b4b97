import { describe, expect, it } from 'vitest';
import { ledgerForFile } from './support.js';
import type { RecoveryMessage } from '../../lib/model.js';

const TABLE = 'run-recoveries-test';
const T = Date.parse('2026-11-03T08:00:00Z');
const db = ledgerForFile(TABLE, () => T);

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
    expect(await db.ledger.recoveries.endOf(ref)).toBeUndefined();
    expect(await db.ledger.recoveries.claimEnd(ref, end)).toBe(true);
    expect(await db.ledger.recoveries.claimEnd(ref, end)).toBe(false);
    expect(await db.ledger.recoveries.endOf(ref)).toMatchObject({ status: 'sending', calls: 0, runnerName: 'r-1' });
    await db.ledger.recoveries.settleEnd(ref, 'accepted', 2);
    expect(await db.ledger.recoveries.endOf(ref)).toMatchObject({ status: 'accepted', calls: 2 });
    // Another attempt of the run is another end.
    expect(await db.ledger.recoveries.claimEnd({ ...ref, runAttempt: 2 }, end)).toBe(true);
  });

  it('an end given back unsent may be claimed again', async () => {
    const ref = { repoId: 9, runId: 71, runAttempt: 1 };
    expect(await db.ledger.recoveries.claimEnd(ref, end)).toBe(true);
    await db.ledger.recoveries.releaseEnd(ref);
    expect(await db.ledger.recoveries.endOf(ref)).toBeUndefined();
    expect(await db.ledger.recoveries.claimEnd(ref, end)).toBe(true);
  });

  it('a run waiting for its healthy jobs keeps its request until the wait stops', async () => {
    expect(await db.ledger.recoveries.waiting(9, 70)).toBeUndefined();
    await db.ledger.recoveries.awaitSiblings(request);
    expect(await db.ledger.recoveries.waiting(9, 70)).toMatchObject({ runId: 70, jobId: 7, trigger: 'signal' });
    await db.ledger.recoveries.stopWaiting(9, 70);
    expect(await db.ledger.recoveries.waiting(9, 70)).toBeUndefined();
  });
});
