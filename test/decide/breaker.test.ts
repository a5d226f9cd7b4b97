import { describe, expect, it } from 'vitest';
import { breakerTrips, crossingRepositories, pauseReason, redOutcome } from '../../lib/decide/breaker.js';
import { decide } from '../../lib/decide/decide.js';
import type { JobVerdict } from '../../lib/model.js';
import { config, failedJob, job, jobVerdict, runFacts, runMessage } from '../support/fixtures.js';

const S = { minOutcomes: 10, windowMs: 30 * 60_000, lostShare: 0.5, coolDownMs: 30 * 60_000 };
const lost = failedJob({ id: 1, name: 'build' });
const v = (verdict: JobVerdict['verdict'], veto?: JobVerdict['veto']): JobVerdict => ({
  ...jobVerdict(lost, verdict, 'annotations'),
  ...(veto && { veto }),
});

describe('breakerTrips: evidence, not volume', () => {
  it.each([
    [{ outcomes: 9, lostAgain: 9 }, false, 'below the threshold, however lost'],
    [{ outcomes: 10, lostAgain: 5 }, true, 'at the threshold and the share'],
    [{ outcomes: 10, lostAgain: 4 }, false, 'under the share'],
    [{ outcomes: 500, lostAgain: 0 }, false, 'many re-runs that all recovered'],
  ])('%o → %s (%s)', (counts, trips) => {
    expect(breakerTrips(counts, S)).toBe(trips);
  });

  it('0 outcomes turns it off', () => {
    expect(breakerTrips({ outcomes: 100, lostAgain: 100 }, { ...S, minOutcomes: 0 })).toBe(false);
  });
});

describe("breakerTrips: one repository's losses open its own breaker, not the installation's", () => {
  const F = { ...S, minRepositories: 3 };
  /** An installation's window from each repository's [outcomes, lost again]. */
  const inst = (...repos: [number, number][]) => ({
    outcomes: repos.reduce((n, [o]) => n + o, 0),
    lostAgain: repos.reduce((n, [, l]) => n + l, 0),
    byRepository: repos.map(([outcomes, lostAgain]) => ({ outcomes, lostAgain })),
  });
  it.each([
    [{ outcomes: 10, lostAgain: 10 }, 'repository', true, "one repository's own losses"],
    [inst([10, 10]), 'installation', false, 'one repository is no fleet pattern'],
    [inst([5, 5], [5, 5]), 'installation', false, 'two repositories, three needed'],
    [inst([4, 2], [4, 2], [4, 2]), 'installation', true, 'three repositories, each at the share'],
    [inst([4, 4], [3, 3], [3, 3]), 'installation', true, 'a fleet broken under three repositories'],
    [inst([4, 1], [3, 1], [3, 1], [4, 1]), 'installation', false, 'spread wide, but each under the share'],
    [inst([10, 10], [3, 1], [3, 1]), 'installation', false, 'a hostile repository and two incidental losses'],
    [
      inst([10, 10], [1, 1], [1, 1]),
      'installation',
      false,
      'a hostile repository and two repositories that lost their only re-run: the hostile one counts its part only',
    ],
    [inst([4, 4], [4, 4], [4, 4], [100, 0]), 'installation', true, 'many recovered re-runs elsewhere dilute nothing'],
  ] as const)('%o as the %s → %s (%s)', (counts, scope, trips, _why) => {
    expect(breakerTrips(counts, F, scope)).toBe(trips);
  });

  it('the installation counts the repositories that crossed the share on their own', () => {
    expect(crossingRepositories(inst([10, 10], [3, 1], [2, 1]), F)).toEqual([
      { outcomes: 10, lostAgain: 10 },
      { outcomes: 2, lostAgain: 1 },
    ]);
  });

  it('the reason names the repository whose re-runs pause, and says the others go on', () => {
    const reason = pauseReason({
      openUntil: Date.parse('2026-01-01T00:30:00Z'),
      outcomes: 10,
      lostAgain: 10,
      windowMs: S.windowMs,
      scope: { kind: 'repository', name: 'acme/selfkill' },
    });
    expect(reason).toBe(
      'automatic re-runs of the repository acme/selfkill are paused until 2026-01-01T00:30:00.000Z: 10 of the last 10 ' +
        're-run attempts within 30 min of this repository were lost again (its runners or its workflow kill them?); other repositories go on',
    );
  });
});

describe('redOutcome: what a red re-run attempt became', () => {
  it.each([
    [[v('infra')], 'failure', 'lost_again'],
    [[v('infra'), v('genuine')], 'failure', 'failed'],
    [[v('vetoed', 'timeout')], 'failure', 'failed'],
    [[v('vetoed', 'person')], 'cancelled', 'cancelled'],
    [[v('inconclusive')], 'failure', 'failed'],
    [[], 'cancelled', 'cancelled'],
    // Evidence never read (an attempt cap, a stale run) is not counted as lost.
    [[], 'failure', 'failed'],
  ] as const)('%j on a %s run → %s', (verdicts, conclusion, expected) => {
    expect(redOutcome(conclusion, verdicts)).toBe(expected);
  });
});

describe('decide: the breaker step', () => {
  const base = {
    message: runMessage(),
    config: config(),
    run: runFacts(),
    // The head of its branch: its staleness checked and clean.
    stale: {},
    budget: { limit: 0, used: 0 },
    jobs: [job({ id: 5, name: 'ok', conclusion: 'success' }), lost],
    verdicts: [v('infra')],
  };
  const open = { openUntil: Date.parse('2026-01-01T00:30:00Z'), outcomes: 10, lostAgain: 8, windowMs: S.windowMs };

  it('is read only when the run would be re-run', () => {
    expect(decide(base)).toEqual({ kind: 'need', what: 'breaker' });
    expect(decide({ ...base, verdicts: [v('genuine')] })).toMatchObject({ kind: 'final', decision: 'genuine_failure' });
    expect(decide({ ...base, config: config({ dryRun: true }) })).toMatchObject({ kind: 'final', decision: 'dry_run' });
  });

  it('open: the run waits until the pause ends, and the reason says why', () => {
    const step = decide({ ...base, breaker: open });
    expect(step).toEqual({ kind: 'wait', untilMs: open.openUntil, reason: pauseReason(open) });
    expect(pauseReason(open)).toBe(
      'automatic re-runs of this installation are paused until 2026-01-01T00:30:00.000Z: 8 of the last 10 re-run ' +
        'attempts within 30 min were lost again (fleet or image broken?)',
    );
  });

  it('closed: the re-run goes', () => {
    expect(decide({ ...base, breaker: { ...open, openUntil: null } })).toMatchObject({ kind: 'rerun' });
  });
});
