import { describe, expect, it } from 'vitest';
import { percentile, recoveryCard, recoveryFigures, recoveryLines } from '../../lib/cli/report-recovery.js';
import type { DecidedAttempt } from '../../lib/records.js';

const decided = (decision: string, recovery?: Record<string, unknown>): DecidedAttempt =>
  ({
    repository: 'acme/web',
    runId: 1,
    runAttempt: 1,
    decision,
    decidedAt: 0,
    ...(recovery && { details: { recovery } }),
  }) as unknown as DecidedAttempt;

describe('the report’s time to recovery (issue 40)', () => {
  it('counts only re-runs whose decision recorded a time from the loss, early or not', () => {
    const x = recoveryFigures([
      decided('retried', { early: true, seconds_to_rerun: 20, waited_for_github_seconds: null }),
      decided('retried', { early: true, seconds_to_rerun: 40, waited_for_github_seconds: null }),
      decided('retried_all', { early: false, seconds_to_rerun: 610, waited_for_github_seconds: 600 }),
      // No re-run, or no exact signal: not counted.
      decided('genuine_failure', { early: false, seconds_to_rerun: null, waited_for_github_seconds: 600 }),
      decided('retried'),
    ]);
    expect(x).toEqual({
      reruns: 3,
      early: 2,
      p50SecondsToRerun: 40,
      p95SecondsToRerun: 610,
      waitedForGitHubMinutes: 10,
      p50WaitedForGitHubSeconds: 600,
    });
  });

  it('percentiles by nearest rank; none of an empty list', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.95)).toBe(4);
    expect(percentile([], 0.5)).toBeNull();
  });

  it('says when there was nothing to time, and shows no card then', () => {
    const none = recoveryFigures([]);
    expect(recoveryLines(none)).toEqual(['Time to recovery: no re-run with an exact signal in the period']);
    expect(recoveryCard(none, () => 'card')).toEqual([]);
  });

  it('names what early recovery would save only where GitHub was waited for', () => {
    const early = recoveryFigures([
      decided('retried', { early: true, seconds_to_rerun: 30, waited_for_github_seconds: null }),
    ]);
    expect(recoveryLines(early)).toHaveLength(1);
    expect(recoveryCard(early, (t, v, n) => `${t}|${v}|${n}`)).toEqual([
      'time to recovery|30 s|p50 from the loss; 1 of 1 ended early; waited for GitHub 0 min',
    ]);
  });
});
