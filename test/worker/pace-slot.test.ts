import { describe, expect, it } from 'vitest';
import { TransientError } from '../../lib/errors.js';
import { LATE_ALLOWANCE_MS } from '../../lib/ledger/pacing.js';
import { reportPaceSlot, takePaceSlot, waitForPaceSlot } from '../../lib/worker/pace-slot.js';
import type { Pacing, RepositoryShare, ShareReservation } from '../../lib/ledger/pacing.js';
import { readCachedFacts } from '../../lib/worker/cached-run-facts.js';
import type { Judged } from '../../lib/worker/evaluate.js';
import { config, failedJob, jobVerdict, runMessage } from '../support/fixtures.js';
import { fakeWorld } from '../support/fakes/context.js';

const INSTALLATION = 42;

const judged = (over: Partial<Judged> = {}): Judged => {
  const job = failedJob();
  return {
    step: { kind: 'rerun', reason: 'lost runner', cancelledOnly: false, evidence: 'text' },
    facts: { message: runMessage(), config: config() },
    verdicts: [jobVerdict(job, 'infra')],
    unexamined: 0,
    config: config(),
    priorRequests: 0,
    ...over,
  };
};

describe('the turn: the installation’s pace slot', () => {
  it('a slot free now is a go, and reserves that slot', async () => {
    const w = fakeWorld({ spacingMs: 5_000 });
    expect(await takePaceSlot(INSTALLATION, {}, w.ctx)).toEqual({ kind: 'go' });
    expect(w.pacing.slots.get(INSTALLATION)).toEqual([w.clock.now()]);
  });

  it('a slot within the in-process allowance is waited for here, then is a go', async () => {
    const w = fakeWorld({ spacingMs: 40, inlineSlotWaitMs: 1_000 });
    await takePaceSlot(INSTALLATION, {}, w.ctx);
    const started = performance.now();
    expect(await takePaceSlot(INSTALLATION, {}, w.ctx)).toEqual({ kind: 'go' });
    // The clock the pace keeps stands still; the wait is a real one of the slot's distance.
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(w.pacing.slots.get(INSTALLATION)).toEqual([w.clock.now(), w.clock.now() + 40]);
  });

  it('a later slot is a wait until it, counted from when the run began waiting', async () => {
    const w = fakeWorld({ spacingMs: 5_000, inlineSlotWaitMs: 1_000 });
    await takePaceSlot(INSTALLATION, {}, w.ctx);
    const turn = await takePaceSlot(INSTALLATION, {}, w.ctx);
    expect(turn).toEqual({ kind: 'wait', until: w.clock.now() + 5_000, waitingSince: w.clock.now() });
  });

  it('a kept slot that came back within the late allowance goes without a new reservation', async () => {
    const w = fakeWorld();
    const slotAt = w.clock.now() - LATE_ALLOWANCE_MS;
    expect(await takePaceSlot(INSTALLATION, { slotAt, waitingSince: slotAt - 60_000 }, w.ctx)).toEqual({ kind: 'go' });
    expect(w.pacing.slots.get(INSTALLATION)).toBeUndefined();
    expect(w.metrics.get('LateTurn')).toBe(0);
  });

  it('a kept slot that came back later than the allowance is given up for a new one (LateTurn)', async () => {
    const w = fakeWorld({ spacingMs: 5_000 });
    // Another run holds the slot free now: the late turn queues behind it instead of going at once.
    await w.pacing.reserve(INSTALLATION);
    const slotAt = w.clock.now() - LATE_ALLOWANCE_MS - 1;
    const turn = await takePaceSlot(INSTALLATION, { slotAt, waitingSince: slotAt - 60_000 }, w.ctx);
    expect(w.metrics.get('LateTurn')).toBe(1);
    expect(turn).toEqual({ kind: 'wait', until: w.clock.now() + 5_000, waitingSince: slotAt - 60_000 });
  });

  it('no slot free within max_wait of when the run began waiting: expired, nothing reserved', async () => {
    const w = fakeWorld({ spacingMs: 5_000, maxWaitMs: 4_000 });
    await w.pacing.reserve(INSTALLATION);
    const turn = await takePaceSlot(INSTALLATION, {}, w.ctx);
    expect(turn).toMatchObject({ kind: 'final', decision: 'expired', reason: expect.stringMatching(/max_wait/) });
    expect(w.metrics.get('Expired')).toBe(1);
    expect(w.pacing.slots.get(INSTALLATION)).toHaveLength(1);
  });
});

describe('waiting for the turn: the claim becomes a wait that keeps the facts', () => {
  it('writes the wait on the claim (slot, lease past it, the facts and the requests so far) and answers the deferral', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, w.ctx.owner, w.ctx.settings.leaseMs);
    const until = w.clock.now() + 12_300;
    const j = judged({ configError: 'reprise.yml: bad', priorRequests: 1 });
    const deferred = await waitForPaceSlot(msg, j, 3, { until, waitingSince: w.clock.now() }, w.ctx);
    expect(deferred).toEqual({
      kind: 'deferred',
      untilMs: until,
      reason: 'waiting for a re-run turn in 13s',
      metric: 'RerunWaiting',
    });
    const rec = w.attempts.of(msg);
    expect(rec).toMatchObject({ state: 'waiting', slotAt: until, leaseUntil: until + 60_000 });
    expect(readCachedFacts(rec.kept)).toMatchObject({ configError: 'reprise.yml: bad', requests: 3, unexamined: 0 });
    expect(readCachedFacts(rec.kept)?.verdicts).toHaveLength(1);
  });

  it('a wait needs the claim: a claim lost meanwhile is a transient fault, and nothing is written', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    const turn = { until: w.clock.now() + 5_000, waitingSince: w.clock.now() };
    await expect(waitForPaceSlot(msg, judged(), 0, turn, w.ctx)).rejects.toBeInstanceOf(TransientError);
    expect(w.attempts.of(msg)).toMatchObject({ state: 'claimed', owner: 'worker-b' });
    expect(w.attempts.count('wait', true)).toBe(0);
  });
});

describe('a check-run report takes its turn inside its repository’s share', () => {
  const pacing = (answer: ShareReservation) => {
    const asked: RepositoryShare[] = [];
    const p: Pacing = {
      spacingMs: 0,
      reserve: async () => 0,
      reserveWithinShare: async (_i, _l, share) => {
        asked.push(share);
        return answer;
      },
    };
    return { p, asked };
  };
  const settings = { maxWaitMs: 60_000, repositoryShare: 0.5 };

  it('its repository’s turn not near (others’ runs ahead of it in the rotation): the report is skipped, no turn taken from another', async () => {
    const { p, asked } = pacing({ askAgainAt: 5_000 });
    expect(await reportPaceSlot(1, { stores: { pacing: p }, clock: () => 0, settings }, 7)).toBe(false);
    expect(asked).toEqual([{ repository: 7, aheadMs: 1_000 }]);
  });

  it('within its share: the report goes on its repository’s turn', async () => {
    const { p, asked } = pacing({ slotAt: 0 });
    expect(await reportPaceSlot(1, { stores: { pacing: p }, clock: () => 0, settings }, 7)).toBe(true);
    expect(asked.map((a) => a.repository)).toEqual([7]);
  });

  it('a run taking its turn names its repository and asks for a slot within the inline wait; one back from a place in the line says it holds one', async () => {
    const { p, asked } = pacing({ askAgainAt: 9_000 });
    const ctx = {
      stores: { pacing: p },
      settings: { maxWaitMs: 60_000, inlineSlotWaitMs: 1_000, repositoryShare: 0.5 },
      obs: { metrics: fakeWorld().metrics },
      clock: () => 0,
    };
    expect(await takePaceSlot(1, {}, ctx, 7)).toEqual({
      kind: 'wait',
      until: 9_000,
      waitingSince: 0,
      unreserved: true,
    });
    expect(await takePaceSlot(1, { slotAt: 9_000, waitingSince: 0, unreserved: true }, ctx, 7)).toMatchObject({
      until: 9_000,
      unreserved: true,
    });
    expect(asked).toEqual([
      { repository: 7, aheadMs: 1_000, returning: false },
      { repository: 7, aheadMs: 1_000, returning: true },
    ]);
  });
});
