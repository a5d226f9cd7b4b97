import { describe, expect, it } from 'vitest';
import { examined } from '../../lib/backtest/compare.js';
import { REQUEST_KINDS } from '../../lib/backtest/requests.js';
import { summarize } from '../../lib/backtest/summary.js';
import {
  type BacktestReport,
  backtestText,
  duration,
  evidenceText,
  progressBar,
  rerunText,
} from '../../lib/cli/backtest-render.js';
import { attempt, run } from '../backtest/support.js';

const judged = (
  wouldRerun: boolean,
  jobs: { name: string; verdict: string | null; source?: string; evidence?: string }[],
) => ({
  decision: wouldRerun ? ('dry_run' as const) : ('genuine_failure' as const),
  reason: wouldRerun ? 'would re-run: runner lost' : 'a test failed',
  wouldRerun,
  jobs: jobs.map((j) => ({
    name: j.name,
    conclusion: 'failure',
    runner: null,
    verdict: j.verdict,
    source: j.source ?? null,
    evidence: j.evidence ?? null,
    minutes: 3,
  })),
  evidenceGone: false,
});

const failed = attempt(1, '2026-03-02T10:00:00Z', '2026-03-02T10:09:00Z');
const next = (afterMin: number, bot = false) =>
  attempt(2, new Date(Date.parse(failed.completedAt) + afterMin * 60_000).toISOString(), '2026-03-02T12:00:00Z', {
    conclusion: 'success',
    actor: { login: bot ? 'renovate[bot]' : 'alice', bot },
  });
const LOST = [
  { name: 'build', verdict: 'genuine', source: 'annotations', evidence: 'exit code 1' },
  { name: 'test', verdict: 'infra', source: 'annotations', evidence: 'pattern self-hosted-lost' },
];

const attempts = [
  examined(run(1, failed.startedAt), failed, next(42), judged(true, LOST)),
  examined(run(2, failed.startedAt), failed, next(5, true), judged(true, LOST)),
  examined(run(3, failed.startedAt), failed, undefined, judged(true, LOST)),
  examined(
    run(4, failed.startedAt),
    failed,
    next(60),
    judged(false, [{ name: 'unit', verdict: 'genuine', source: 'annotations' }]),
  ),
];

const report = (over: Partial<BacktestReport> = {}): BacktestReport => ({
  scope: 'acme/web',
  period: { since: '2026-03-01T00:00:00.000Z', until: '2026-03-05T00:00:00.000Z' },
  signals: 'not consulted (pass --table or --stack)',
  complete: true,
  planned: 4,
  done: 4,
  repositories: 1,
  runsListed: 20,
  runsExamined: 4,
  summary: summarize(attempts, Date.parse('2026-03-01T00:00:00Z'), Date.parse('2026-03-05T00:00:00Z')),
  requests: {
    total: 31,
    byKind: {
      ...Object.fromEntries(REQUEST_KINDS.map((k) => [k, 0])),
      jobs: 4,
      token: 1,
    } as BacktestReport['requests']['byKind'],
  },
  notes: [],
  attempts,
  ...over,
});

describe('backtest-render: words and bars', () => {
  it('a duration as people say it', () => {
    expect(duration(null)).toBe('—');
    expect(duration(42_400)).toBe('42 s');
    expect(duration(17 * 60_000 + 20_000)).toBe('17 min');
    expect(duration(3.5 * 3_600_000)).toBe('3.5 h');
    expect(duration(2.1 * 86_400_000)).toBe('2.1 d');
  });

  it('the progress bar redraws in place, full when there is nothing to do', () => {
    expect(progressBar(3, 12, 8)).toBe('\r[##......] 3/12 attempts');
    expect(progressBar(0, 0, 4)).toBe('\r[####] 0/0 attempts');
    expect(progressBar(20, 10, 4)).toBe('\r[####] 20/10 attempts');
  });

  it('who re-ran it and how it went; a bot is said to be one', () => {
    expect(rerunText(attempts[0]!)).toBe('re-run by alice after 42 min: success');
    expect(rerunText(attempts[1]!)).toBe('re-run by renovate[bot] (bot) after 5 min: success');
    expect(rerunText(attempts[2]!)).toBe('not re-run');
  });

  it('the evidence shown is the infra job, else the first judged job, else the reason', () => {
    expect(evidenceText(attempts[0]!)).toBe('test: infra (annotations) pattern self-hosted-lost');
    expect(evidenceText(attempts[3]!)).toBe('unit: genuine (annotations)');
    const none = examined(run(5, failed.startedAt), failed, undefined, judged(false, [{ name: 'ok', verdict: null }]));
    expect(evidenceText(none)).toBe('a test failed');
  });
});

describe('backtestText: the backtest for a terminal', () => {
  const text = backtestText(report());

  it('the scope and period, the counts, and each class with what it means', () => {
    expect(text.split('\n')[0]).toBe('reprise backtest: acme/web, 2026-03-01 00:00Z to 2026-03-05 00:00Z');
    expect(text).toContain('Repositories: 1   runs listed: 20   runs with a failed or re-run attempt: 4');
    expect(text).toContain('Failed attempts examined: 4   reprise would re-run: 3');
    expect(text).toMatch(/^ {2}agreed_rerun +2 +reprise would re-run, people did \(2 passed\)$/m);
    expect(text).toMatch(/^ {2}reprise_only +1 +reprise would re-run, nobody did$/m);
    expect(text).toMatch(/^ {2}people_only +1 +people re-ran, reprise would not$/m);
    expect(text).toContain("People's waiting time reprise would have saved: 47 min over 2 re-run(s)");
    expect(text).toContain('Median delay before a re-run by people: 42 min (2 by people, 1 by bots)');
  });

  it('each disagreement with its URL, both sides and the command that reproduces it', () => {
    expect(text).toContain(
      [
        '  reprise_only  acme/web run 3 attempt 1 (CI), 2026-03-02 10:09Z',
        '    https://github.com/acme/web/actions/runs/3',
        '    reprise: would re-run: runner lost',
        '    evidence: test: infra (annotations) pattern self-hosted-lost',
        '    people: not re-run',
        '    reprise explain acme/web#3@1',
      ].join('\n'),
    );
    expect(text).toContain('    reprise: genuine_failure: a test failed');
  });

  it('agreed re-runs longest wait first; the requests by kind, with the budget when one was set', () => {
    const agreed = text.slice(text.indexOf('Agreed re-runs (longest waits first):'));
    expect(agreed.indexOf('run 1 attempt 1')).toBeLessThan(agreed.indexOf('run 2 attempt 1'));
    expect(text.split('\n').at(-1)).toBe('GitHub requests: 31 (token 1, jobs 4)');
    const budget = backtestText(
      report({ complete: false, done: 2, requests: { ...report().requests, max: 40 }, notes: ['one note'] }),
    );
    expect(budget).toContain(
      'Stopped by --max-requests 40: 2 of 4 attempts looked at. Run again with the same --cache FILE to go on from there.',
    );
    expect(budget).toContain('Note: one note');
    expect(budget.split('\n').at(-1)).toBe('GitHub requests: 31 of 40 allowed (token 1, jobs 4)');
  });
});
