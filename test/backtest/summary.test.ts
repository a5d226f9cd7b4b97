import { describe, expect, it } from 'vitest';
import { examined, type ExaminedAttempt } from '../../lib/backtest/compare.js';
import type { AttemptRecord } from '../../lib/backtest/history.js';
import type { JudgedJob, Judgement } from '../../lib/backtest/judge.js';
import { evidenceFamily, summarize } from '../../lib/backtest/summary.js';
import { attempt, run } from './support.js';

describe('backtest: comparing reprise with people', () => {
  it('evidence families: an exact signal, or the pattern and where it was read, from the fields', () => {
    expect(evidenceFamily({ source: 'signal', family: 'signal', pattern: null })).toBe('exact signal');
    expect(evidenceFamily({ source: 'annotations', family: 'runner-loss', pattern: 'self-hosted-lost' })).toBe(
      'self-hosted-lost (annotations)',
    );
    expect(evidenceFamily({ source: 'logs', family: 'runner-loss', pattern: 'shutdown-signal' })).toBe(
      'shutdown-signal (logs)',
    );
    // A configured pattern's whole name, spaces and all (the text's first word was all a parse could get).
    expect(evidenceFamily({ source: 'annotations', family: 'runner-loss', pattern: 'extra:runner went away' })).toBe(
      'extra:runner went away (annotations)',
    );
    // Other text families count by where they were read, as before.
    expect(evidenceFamily({ source: 'platform', family: 'platform', pattern: 'not-acquired' })).toBe('platform');
  });

  it('a line of an older cache, without family and pattern, counts by its source', () => {
    expect(evidenceFamily({ source: 'annotations' })).toBe('annotations');
    expect(evidenceFamily({ source: null })).toBe('unknown');
  });
});

const job = (over: Partial<JudgedJob>): JudgedJob => ({
  name: 'test',
  conclusion: 'failure',
  runner: null,
  verdict: null,
  source: null,
  evidence: null,
  minutes: null,
  ...over,
});

const judgement = (wouldRerun: boolean, jobs: JudgedJob[]): Judgement => ({
  decision: wouldRerun ? 'dry_run' : 'no_infra_evidence',
  reason: 'r',
  wouldRerun,
  jobs,
  evidenceGone: false,
});

const DAY = '2026-03-0';
/** An examined attempt of run `id` in `repo`, failed on day `d`, and its next attempt if people re-ran it. */
function one(
  id: number,
  d: number,
  would: boolean,
  next?: { afterMin: number; over?: Partial<AttemptRecord> },
  jobs: JudgedJob[] = [
    job({
      verdict: would ? 'infra' : 'genuine',
      source: 'annotations',
      evidence: 'pattern self-hosted-lost',
      family: would ? 'runner-loss' : 'failure-text',
      pattern: would ? 'self-hosted-lost' : null,
    }),
  ],
  repo = 'web',
): ExaminedAttempt {
  const failed = attempt(1, `${DAY}${d}T10:00:00Z`, `${DAY}${d}T10:10:00Z`);
  const r = run(id, failed.startedAt, { repository: { id: 1, owner: 'acme', name: repo } });
  const nextAttempt =
    next &&
    attempt(
      2,
      new Date(Date.parse(failed.completedAt) + next.afterMin * 60_000).toISOString(),
      `${DAY}${d}T23:00:00Z`,
      {
        conclusion: 'success',
        ...next.over,
      },
    );
  return examined(r, failed, nextAttempt, judgement(would, jobs));
}

describe('summarize: the figures of a backtest', () => {
  const since = Date.parse('2026-03-01T00:00:00Z');
  const until = Date.parse('2026-03-04T12:00:00Z');
  const attempts = [
    one(1, 1, true, { afterMin: 3 }, [
      job({ name: 'build', conclusion: 'success', minutes: 7.25 }),
      job({ verdict: 'infra', source: 'signal', evidence: 'spot-interruption i-1', family: 'signal' }),
    ]),
    one(2, 1, true, { afterMin: 90, over: { actor: { login: 'renovate[bot]', bot: true }, conclusion: 'failure' } }),
    one(3, 3, true, undefined, undefined, 'api'),
    one(4, 2, false, { afterMin: 20 }),
    one(5, 2, false),
  ];
  const s = summarize(attempts, since, until);

  it('counts each class, the re-runs reprise would make, and the agreed re-runs whose next attempt passed', () => {
    expect(s.classes).toEqual({ agreed_rerun: 2, reprise_only: 1, people_only: 1, agreed_leave: 1 });
    expect(s.wouldRerun).toBe(3);
    expect(s.agreedPassed).toBe(1);
  });

  it("the saved delay is the agreed re-runs' delays; the median runs over every re-run by people", () => {
    expect(s.savedDelayMs).toBe(93 * 60_000);
    expect(s.medianDelayMs).toBe(20 * 60_000);
    expect(summarize([], since, until).medianDelayMs).toBeNull();
    expect(summarize(attempts.slice(0, 2), since, until).medianDelayMs).toBe(46.5 * 60_000);
  });

  it('runner minutes kept are the passed jobs of attempts reprise would re-run, to a tenth', () => {
    expect(s.runnerMinutesKept).toBe(7.3);
  });

  it('re-runs by people and by bots, and their delays in buckets', () => {
    expect(s.reruns).toEqual({ byPeople: 2, byBots: 1 });
    expect(s.delays).toEqual([
      { name: 'under 5 min', count: 1 },
      { name: '5 to 15 min', count: 0 },
      { name: '15 min to 1 h', count: 1 },
      { name: '1 to 4 h', count: 1 },
      { name: '4 to 24 h', count: 0 },
      { name: 'over a day', count: 0 },
    ]);
  });

  it('one bar per day of the period, counting the re-runs reprise would make', () => {
    expect(s.perDay).toEqual([
      { day: '2026-03-01', count: 2 },
      { day: '2026-03-02', count: 0 },
      { day: '2026-03-03', count: 1 },
      { day: '2026-03-04', count: 0 },
    ]);
  });

  it('the top repositories, workflows and evidence of the re-runs reprise would make, most first, then by name', () => {
    expect(s.topRepositories).toEqual([
      { name: 'acme/web', count: 2 },
      { name: 'acme/api', count: 1 },
    ]);
    expect(s.topWorkflows).toEqual([
      { name: 'acme/web · CI', count: 2 },
      { name: 'acme/api · CI', count: 1 },
    ]);
    expect(s.evidence).toEqual([
      { name: 'self-hosted-lost (annotations)', count: 2 },
      { name: 'exact signal', count: 1 },
    ]);
  });
});
