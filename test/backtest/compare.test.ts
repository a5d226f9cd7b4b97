import { describe, expect, it } from 'vitest';
import { classify, rerunOf } from '../../lib/backtest/compare.js';
import type { AttemptRecord, ListedRun } from '../../lib/backtest/history.js';
import { staleThen } from '../../lib/backtest/judge.js';
import { kindOf, RequestBudgetSpent, RequestMeter } from '../../lib/backtest/requests.js';
import { evidenceFamily } from '../../lib/backtest/summary.js';

const attempt = (
  n: number,
  startedAt: string,
  completedAt: string,
  over: Partial<AttemptRecord> = {},
): AttemptRecord => ({
  number: n,
  status: 'completed',
  conclusion: 'failure',
  startedAt,
  completedAt,
  actor: { login: 'alice', bot: false },
  ...over,
});

const run = (id: number, createdAt: string, over: Partial<ListedRun> = {}): ListedRun => ({
  repository: { id: 1, owner: 'acme', name: 'web' },
  id,
  workflowId: 7,
  workflowName: 'CI',
  workflowPath: '.github/workflows/ci.yml',
  event: 'push',
  headSha: `sha${id}`,
  headBranch: 'main',
  createdAt,
  pullRequests: [],
  htmlUrl: `https://github.com/acme/web/actions/runs/${id}`,
  latest: attempt(1, createdAt, createdAt),
  ...over,
});

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

  it('staleness as it stood then: a newer run of the workflow on the branch counts only once created before the attempt completed', () => {
    const r = run(1, '2026-03-01T10:00:00Z');
    const failed = attempt(1, '2026-03-01T10:00:00Z', '2026-03-01T10:09:00Z');
    const before = run(2, '2026-03-01T10:05:00Z');
    const after = run(3, '2026-03-01T10:30:00Z');
    const otherBranch = run(4, '2026-03-01T10:05:00Z', { headBranch: 'topic', headSha: 'x' });
    expect(staleThen(r, failed, [r, after, otherBranch])).toEqual({});
    expect(staleThen(r, failed, [r, before, after])).toEqual({ newerRunId: 2 });
  });

  it('evidence families: an exact signal, or the pattern and where it was read', () => {
    expect(evidenceFamily('signal', 'spot-interruption i-0abc')).toBe('exact signal');
    expect(evidenceFamily('annotations', 'pattern self-hosted-lost')).toBe('self-hosted-lost (annotations)');
    expect(evidenceFamily('logs', 'log pattern runner-shutdown')).toBe('runner-shutdown (logs)');
  });
});

describe('backtest: the request meter', () => {
  it('counts each request by kind, GHES paths included', () => {
    expect(kindOf('https://ghe.example.com/api/v3/repos/a/b/actions/runs?created=%3E%3D2026-01-01')).toBe(
      'run listings',
    );
    expect(kindOf('https://api.github.com/repos/a/b/actions/runs/5/attempts/2')).toBe('attempts');
    expect(kindOf('https://api.github.com/repos/a/b/actions/runs/5/attempts/2/jobs')).toBe('jobs');
    expect(kindOf('https://ghe.example.com/api/graphql')).toBe('annotations');
    expect(kindOf('https://api.github.com/app/installations/9/access_tokens')).toBe('token');
    expect(kindOf('https://api.github.com/repos/a/b/contents/.github%2Freprise.yml')).toBe('configuration');
  });

  it('never sends the request past the budget: it is refused, and counted as refused', async () => {
    let sent = 0;
    const meter = new RequestMeter(2, async () => {
      sent++;
      return new Response('{}');
    });
    await meter.fetch('https://api.github.com/installation/repositories');
    await meter.fetch('https://api.github.com/repos/a/b/actions/runs');
    await expect(meter.fetch('https://api.github.com/repos/a/b/actions/runs')).rejects.toBeInstanceOf(
      RequestBudgetSpent,
    );
    expect(sent).toBe(2);
    expect(meter.total).toBe(2);
    expect(meter.refused).toBe(1);
    expect(meter.remaining).toBe(0);
    expect(meter.byKind()).toMatchObject({ repositories: 1, 'run listings': 1 });
  });
});
