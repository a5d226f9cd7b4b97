import { describe, expect, it } from 'vitest';
import { keys, TTL, ttlFrom } from '../../lib/ledger/keys.js';

describe('the table’s key layout', () => {
  it('a run’s attempts and their reclaim markers share the run’s partition, its re-run outcomes have their own, the attempt zero-padded so it sorts', () => {
    expect(keys.runAttempt(9, 42, 3)).toEqual({ pk: 'RUN#9#42', sk: 'ATTEMPT#003' });
    expect(keys.reclaim(9, 42, 3)).toEqual({ pk: 'RUN#9#42', sk: 'RECLAIM#003' });
    expect(keys.rerunOutcome(9, 42, 12)).toEqual({ pk: 'RUNOUTCOME#9#42', sk: 'OUTCOME#012' });
    expect(keys.runAttempt(9, 42, 10).sk > keys.runAttempt(9, 42, 9).sk).toBe(true);
    expect(keys.runIdOf(keys.runAttempt(9, 42, 1).pk)).toBe(42);
  });

  it('a key of no installation says `none`, never `null`', () => {
    for (const key of [keys.budgetWindow(null), keys.pacing(null), keys.breaker(null), keys.queuedJob(null, 1, 2)]) {
      expect(key.pk).toMatch(/#none$/);
    }
    expect(keys.queuedInstallation(null).sk).toBe('INST#none');
    expect(keys.repoBreaker(null, 5).pk).toBe('BREAKER#none#REPO#5');
  });

  it('a runner’s signals between two times are one range, taking every event id at the last time', () => {
    const range = keys.runnerSignalsBetween('i-1', '2026-11-03T08:00:00.000Z', '2026-11-03T08:05:00.000Z');
    expect(range.pk).toBe(keys.runnerSignal('i-1', 't', 'e').pk);
    const [from, to] = (range.sk as { between: [string, string] }).between;
    const last = keys.runnerSignal('i-1', '2026-11-03T08:05:00.000Z', 'zzzz-event').sk;
    expect(last >= from && last <= to).toBe(true);
    const after = keys.runnerSignal('i-1', '2026-11-03T08:05:00.001Z', 'a').sk;
    expect(after > to).toBe(true);
    const scoped = keys.runnerSignal('i-1', '2026-11-03T08:05:00.000Z', 'zzzz-event', 'ffff').sk;
    expect(scoped >= from && scoped <= to).toBe(true);
  });

  it('a signal record and a post’s first receipt name the scope that wrote them; the fleet’s carry none', () => {
    const a = keys.runnerSignal('i-1', 't', 'e', 'tag-a');
    const b = keys.runnerSignal('i-1', 't', 'e', 'tag-b');
    expect(a.pk).toBe(b.pk);
    expect(a.sk).not.toBe(b.sk);
    expect(keys.runnerSignal('i-1', 't', 'e').sk).toBe('SIGNAL#t#e');
    expect(keys.signalPost('e', 'tag-a').pk).not.toBe(keys.signalPost('e', 'tag-b').pk);
    expect(keys.signalPost('e', 'tag-a').pk).toMatch(/^SIGNALPOST#/);
  });

  it('an outcome window starts after its time; a queued-job share after its last job, or from the first', () => {
    expect(keys.outcomesSince(7, '2026-11-03T08:00:00.000Z')).toEqual({
      pk: 'OUTCOMES#7',
      sk: { after: 'AT#2026-11-03T08:00:00.000Z' },
    });
    expect(keys.outcomeAt(7, '2026-11-03T08:00:00.001Z', 'a').sk > 'AT#2026-11-03T08:00:00.000Z').toBe(true);
    expect(keys.repoOutcomesSince(7, 9, 'x').pk).toBe(`${keys.outcomeAt(7, 'x', 'a').pk}#REPO#9`);
    expect(keys.queuedJobsAfter(7)).toEqual({ pk: 'QUEUED#7', sk: { after: 'JOB#' } });
    const job = keys.queuedJob(7, 9, 5);
    expect(keys.queuedJobsAfter(7, job.sk)).toEqual({ pk: job.pk, sk: { after: 'JOB#9#5' } });
    // The share's cursor sits beside the jobs but sorts before them, so a share never reads it.
    expect(keys.queuedCursor(7).sk < 'JOB#').toBe(true);
  });

  it('a merge group and a pull-request head share the pull request’s partition', () => {
    expect(keys.requeueGroup(9, 3, 'g').pk).toBe(keys.requeueHead(9, 3, 'h').pk);
    expect(keys.requeueGroup(9, 3, 'g').sk).not.toBe(keys.requeueHead(9, 3, 'g').sk);
  });

  it('an item’s expiry is whole epoch seconds from now; every TTL is at least as long as what reads it', () => {
    expect(ttlFrom(1_700_000_000_999, 60)).toBe(1_700_000_060);
    expect(TTL.budgetWindow).toBeGreaterThanOrEqual(3600);
    expect(TTL.pacing).toBeGreaterThanOrEqual(3600);
    expect(TTL.rerunOutcome).toBe(TTL.runAttempt);
    expect(TTL.redelivery).toBeGreaterThan(7 * 24 * 3600);
  });
});
