import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../lib/errors.js';
import type { ForceCancelAnswer } from '../../lib/github/force-cancel.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { endRun, forceCancelBackoffMs, MAX_FORCE_CANCEL_CALLS } from '../../lib/worker/end-run.js';
import { MemoryLog } from '../support/memory-log.js';
import { MemoryRecoveries } from '../support/fakes/recoveries.js';

const ref = { repoId: 7, runId: 9001, runAttempt: 1 };
const step = { kind: 'end_run', reason: 'build on a runner proven gone', lost: [], alsoEnded: [] } as never;
const lost = { runnerName: 'runner-1', lostAt: '2026-12-05T10:00:00.000Z' };

/** GitHub's force-cancel answering each call in turn from `answers` (a thrown error where one is given). */
function world(answers: readonly (ForceCancelAnswer | Error)[]) {
  const recoveries = new MemoryRecoveries();
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  const slept: number[] = [];
  let calls = 0;
  const api = {
    forceCancel: async () => {
      const a = answers[Math.min(calls++, answers.length - 1)]!;
      if (a instanceof Error) throw a;
      return a;
    },
  };
  const ctx = {
    stores: { recoveries },
    obs: { log, metrics },
    clock: () => Date.parse('2026-12-05T10:01:00Z'),
    sleep: async (ms: number) => void slept.push(ms),
  };
  return { recoveries, log, metrics, slept, api, ctx, sent: () => calls };
}

describe('ending a run before GitHub’s lease runs out', () => {
  it('force-cancel accepted: the end is claimed, settled accepted after one call, and counted', async () => {
    const w = world([{ kind: 'accepted' }]);
    const r = await endRun(ref, step, lost, w.api, w.ctx, {});
    expect(r).toEqual({ outcome: 'ended', reason: 'force-cancel accepted: build on a runner proven gone', calls: 1 });
    expect(await w.recoveries.endOf(ref)).toMatchObject({ status: 'accepted', calls: 1, runnerName: 'runner-1' });
    expect(w.metrics.get('RunEndedEarly')).toBe(1);
  });

  it('a fault is tried again after 1 s, then 2 s, at most MAX_FORCE_CANCEL_CALLS calls, then settled refused', async () => {
    const w = world([{ kind: 'fault', fault: 'GitHub answered 502' }]);
    const r = await endRun(ref, step, lost, w.api, w.ctx, {});
    expect(w.sent()).toBe(MAX_FORCE_CANCEL_CALLS);
    expect(w.slept).toEqual([1000, 2000].slice(0, MAX_FORCE_CANCEL_CALLS - 1));
    expect(r).toMatchObject({ outcome: 'end_refused', calls: MAX_FORCE_CANCEL_CALLS });
    expect(w.metrics.get('EarlyEndRefused')).toBe(1);
    expect([1, 2].map(forceCancelBackoffMs)).toEqual([1000, 2000]);
  });

  it('a refusal is final: one call, no retry', async () => {
    const w = world([{ kind: 'refused', refusal: 'GitHub answered 409' }]);
    const r = await endRun(ref, step, lost, w.api, w.ctx, {});
    expect(w.sent()).toBe(1);
    expect(r.reason).toContain('GitHub answered 409');
    expect(await w.recoveries.endOf(ref)).toMatchObject({ status: 'refused', calls: 1 });
  });

  it('an attempt already ended by reprise is not called again', async () => {
    const w = world([{ kind: 'accepted' }]);
    await endRun(ref, step, lost, w.api, w.ctx, {});
    const again = await endRun(ref, step, lost, w.api, w.ctx, {});
    expect(again).toMatchObject({ outcome: 'already_ended', calls: 0 });
    expect(w.sent()).toBe(1);
  });

  it('a rate limit on the first call gives the claim back and is thrown, so the request waits and may end it later', async () => {
    const limited = new RateLimitedError(30_000);
    const w = world([limited]);
    await expect(endRun(ref, step, lost, w.api, w.ctx, {})).rejects.toBe(limited);
    expect(await w.recoveries.endOf(ref)).toBeUndefined();
  });
});
