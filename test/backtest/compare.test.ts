import { describe, expect, it } from 'vitest';
import { classify, examined, rerunOf } from '../../lib/backtest/compare.js';
import { attempt, run } from './support.js';

describe('backtest: comparing reprise with people', () => {
  it('each failed attempt is in exactly one class', () => {
    expect(classify(true, true)).toBe('agreed_rerun');
    expect(classify(true, false)).toBe('reprise_only');
    expect(classify(false, true)).toBe('people_only');
    expect(classify(false, false)).toBe('agreed_leave');
  });

  it("the person's delay runs from the failed attempt's completion to the next attempt's start, and says who", () => {
    const failed = attempt(1, '2026-03-01T10:00:00Z', '2026-03-01T10:09:00Z');
    const next = attempt(2, '2026-03-01T10:51:00Z', '2026-03-01T11:00:00Z', {
      conclusion: 'success',
      actor: { login: 'renovate[bot]', bot: true },
    });
    expect(rerunOf(failed, next)).toEqual({
      by: { login: 'renovate[bot]', bot: true },
      delayMs: 42 * 60_000,
      conclusion: 'success',
      passed: true,
    });
    expect(rerunOf(failed, undefined)).toBeUndefined();
  });

  it('an examined attempt: the URL of an earlier attempt names it, the saved delay counts for agreed re-runs only, and explain reproduces it', () => {
    const failed = attempt(1, '2026-03-01T10:00:00Z', '2026-03-01T10:09:00Z');
    const next = attempt(2, '2026-03-01T10:19:00Z', '2026-03-01T10:30:00Z', { conclusion: 'success' });
    const r = run(9, '2026-03-01T10:00:00Z', { latest: next });
    const judged = (wouldRerun: boolean) => ({
      decision: 'dry_run' as const,
      reason: 'r',
      wouldRerun,
      jobs: [],
      evidenceGone: false,
    });
    const agreed = examined(r, failed, next, judged(true));
    expect(agreed).toMatchObject({
      repository: 'acme/web',
      workflow: 'CI',
      runId: 9,
      attempt: 1,
      class: 'agreed_rerun',
      url: 'https://github.com/acme/web/actions/runs/9/attempts/1',
      completedAt: '2026-03-01T10:09:00Z',
      savedDelayMs: 10 * 60_000,
      explain: 'reprise explain acme/web#9@1',
    });
    expect(examined(r, failed, next, judged(false))).toMatchObject({ class: 'people_only', savedDelayMs: 0 });
    const latest = examined(run(9, '2026-03-01T10:00:00Z', { latest: failed }), failed, undefined, judged(true));
    expect(latest).toMatchObject({ class: 'reprise_only', url: 'https://github.com/acme/web/actions/runs/9' });
    expect(latest).not.toHaveProperty('rerun');
  });
});
