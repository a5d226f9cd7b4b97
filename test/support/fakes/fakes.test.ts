/**
 * The in-memory stores the stage tests use hold the rules the table holds: each scenario runs on
 * the real store (embedded DynamoDB) and on its fake, and must read the same on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryBudget } from '../../../lib/ledger/budget.js';
import { openLedger } from '../../../lib/ledger/ledger.js';
import type { Pacing } from '../../../lib/ledger/pacing.js';
import type { RunAttempts } from '../../../lib/ledger/run-attempts.js';
import { type EmbeddedDynamo, startDynamo } from '../../../lib/local/dynamo.js';
import { runMessage } from '../fixtures.js';
import { MemoryAttempts } from './attempts.js';
import { MemoryBudget, MemoryPacing } from './counters.js';
import { VirtualClock } from '../virtual-clock.js';

const TABLE = 'fakes-contract';
let dynamo: EmbeddedDynamo;
let seq = 0;

beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo?.close());

function clock(): VirtualClock {
  const c = new VirtualClock();
  c.advance(Date.parse('2026-10-02T16:30:00Z'));
  return c;
}

const stores = {
  attempts: [
    ['the table', (c: VirtualClock): RunAttempts => openLedger(dynamo.client, TABLE, c.now).attempts],
    ['the memory fake', (c: VirtualClock): RunAttempts => new MemoryAttempts(c.now)],
  ],
  budget: [
    [
      'the table',
      (c: VirtualClock, limit: number): RetryBudget => openLedger(dynamo.client, TABLE, c.now).budget(limit),
    ],
    ['the memory fake', (c: VirtualClock, limit: number): RetryBudget => new MemoryBudget(limit, c.now)],
  ],
  pacing: [
    [
      'the table',
      (c: VirtualClock, spacingMs: number): Pacing =>
        openLedger(dynamo.client, TABLE, c.now).pacing({ perMinute: 1_000, perHour: 0, spacingMs }),
    ],
    ['the memory fake', (c: VirtualClock, spacingMs: number): Pacing => new MemoryPacing(spacingMs, c.now)],
  ],
} as const;

describe.each(stores.attempts)('run attempts on %s', (_name, open) => {
  const fresh = () => runMessage({ runId: 70_000 + ++seq, repository: { id: 7, owner: 'acme', name: 'fakes' } });

  it('a claim has one owner; a second is refused and shown what holds the attempt', async () => {
    const c = clock();
    const attempts = open(c);
    const msg = fresh();
    expect(await attempts.claim(msg, 'a', 60_000)).toEqual({ claimed: true });
    expect(await attempts.claim(msg, 'b', 60_000)).toMatchObject({
      claimed: false,
      existing: { state: 'claimed', owner: 'a' },
    });
  });

  it('a wait, a note, a record and a release each need the claim', async () => {
    const c = clock();
    const attempts = open(c);
    const msg = fresh();
    await attempts.claim(msg, 'a', 60_000);
    expect(await attempts.wait(msg, 'b', c.now() + 5_000, c.now(), 60_000)).toBe(false);
    expect(await attempts.noteCallFailed(msg, 'b', 'x')).toBe(false);
    expect(await attempts.finalise(msg, 'b', 'retried', 'x')).toBe(false);
    expect(await attempts.release(msg, 'b')).toBe(false);
    expect(await attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toMatchObject({
      state: 'claimed',
      owner: 'a',
    });
    expect(await attempts.release(msg, 'a')).toBe(true);
    expect(await attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
  });

  it('a waiting attempt is refused before its slot and taken over, slot and kept facts, once the slot came', async () => {
    const c = clock();
    const attempts = open(c);
    const msg = fresh();
    await attempts.claim(msg, 'a', 60_000);
    const slot = c.now() + 5_000;
    expect(await attempts.wait(msg, 'a', slot, c.now(), 60_000, '{"kept":1}')).toBe(true);
    // A waiting attempt is no longer a claim: its owner cannot record or release it meanwhile.
    expect(await attempts.finalise(msg, 'a', 'retried', 'x')).toBe(false);
    expect(await attempts.claim(msg, 'b', 60_000)).toMatchObject({ claimed: false, existing: { state: 'waiting' } });
    c.advance(5_000);
    expect(await attempts.claim(msg, 'b', 60_000)).toEqual({
      claimed: true,
      slotAt: slot,
      waitingSince: slot - 5_000,
      kept: '{"kept":1}',
    });
    expect(await attempts.finalise(msg, 'b', 'retried', 'x')).toBe(true);
  });

  it('a forced release takes exactly the record read, never one that records a re-run', async () => {
    const c = clock();
    const attempts = open(c);
    const [rerun, other] = [fresh(), fresh()];
    for (const m of [rerun, other]) await attempts.claim(m, 'a', 60_000);
    await attempts.finalise(rerun, 'a', 'retried', 'x');
    await attempts.finalise(other, 'a', 'rerun_rejected', 'x');
    const seenRerun = (await attempts.get(rerun.repository.id, rerun.runId, 1))!;
    const seenOther = (await attempts.get(other.repository.id, other.runId, 1))!;
    expect(await attempts.forceRelease(rerun, seenRerun)).toBe(false);
    expect(await attempts.forceRelease(other, { ...seenOther, claimedAt: seenOther.claimedAt - 1 })).toBe(false);
    expect(await attempts.forceRelease(other, seenOther)).toBe(true);
  });
});

describe.each(stores.budget)('the retry budget on %s', (_name, open) => {
  it('exact: the limit and no more, one unit per run key, a unit given back free again, units out of the hour', async () => {
    const c = clock();
    const installation = 90_000 + ++seq;
    const budget = open(c, 2);
    expect(await budget.take(installation, 'a')).toEqual({ taken: true });
    expect(await budget.take(installation, 'b')).toEqual({ taken: true });
    expect(await budget.take(installation, 'c')).toEqual({
      taken: false,
      limit: 2,
      used: 2,
      repository: { limit: 2, used: 0 },
    });
    expect(await budget.take(installation, 'a')).toEqual({ taken: true });
    await budget.giveBack(installation, 'b');
    expect(await budget.usage(installation)).toEqual({ limit: 2, used: 1 });
    expect(await budget.take(installation, 'c')).toEqual({ taken: true });
    c.advance(3_600_001);
    expect(await budget.usage(installation)).toEqual({ limit: 2, used: 0 });
  });

  it('a limit of 0 sets no ceiling', async () => {
    const c = clock();
    const budget = open(c, 0);
    for (const k of ['a', 'b', 'c']) expect(await budget.take(91_000 + ++seq, k)).toEqual({ taken: true });
    expect(await budget.usage(1)).toEqual({ limit: 0, used: 0 });
  });
});

describe.each(stores.pacing)('the pace on %s', (_name, open) => {
  it('slots the spacing apart; one later than `latest` is refused and reserves nothing, unless free now', async () => {
    const c = clock();
    const installation = 92_000 + ++seq;
    const pacing = open(c, 1_000);
    expect(await pacing.reserve(installation)).toBe(c.now());
    expect(await pacing.reserve(installation, c.now() + 500)).toBeUndefined();
    expect(await pacing.reserve(installation, c.now() + 1_000)).toBe(c.now() + 1_000);
    c.advance(10_000);
    expect(await pacing.reserve(installation, c.now() - 1)).toBe(c.now());
  });
});
