import { describe, expect, it } from 'vitest';
import { isBudgetSpent, kindOf, RequestBudgetSpent, RequestMeter } from '../../lib/backtest/requests.js';

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

describe('requests: kinds, the budget and its refusal', () => {
  it('the remaining paths: installations, logs, annotations by REST, a run itself, and anything else', () => {
    expect(kindOf('https://api.github.com/app/installations')).toBe('installation');
    expect(kindOf('https://api.github.com/repos/a/b/installation')).toBe('installation');
    expect(kindOf('https://api.github.com/repos/a/b/actions/jobs/9/logs')).toBe('logs');
    expect(kindOf('https://api.github.com/repos/a/b/check-runs/9/annotations')).toBe('annotations');
    expect(kindOf('https://api.github.com/repos/a/b/actions/runs/5/')).toBe('attempts');
    expect(kindOf('https://api.github.com/rate_limit')).toBe('other');
  });

  it('the refusal is found however deep it is wrapped, up to six causes', () => {
    const spent = new RequestBudgetSpent(5);
    expect(spent.message).toBe('the request budget (--max-requests 5) is spent');
    const wrap = (e: unknown, n: number): unknown => (n === 0 ? e : wrap(new Error('wrapped', { cause: e }), n - 1));
    expect(isBudgetSpent(spent)).toBe(true);
    expect(isBudgetSpent(wrap(spent, 5))).toBe(true);
    expect(isBudgetSpent(wrap(spent, 6))).toBe(false);
    expect(isBudgetSpent(new Error('other'))).toBe(false);
    expect(isBudgetSpent(undefined)).toBe(false);
  });

  it('without a budget nothing is refused and the room is endless; URL and Request inputs are counted by their kind', async () => {
    const meter = new RequestMeter(undefined, async () => new Response('{}'));
    await meter.fetch(new URL('https://api.github.com/repos/a/b/actions/runs/1/jobs'));
    await meter.fetch(new Request('https://api.github.com/repos/a/b/actions/jobs/1/logs'));
    expect(meter.remaining).toBe(Infinity);
    expect(meter.spent).toBe(false);
    expect(meter.byKind()).toMatchObject({ jobs: 1, logs: 1, token: 0 });
    expect(Object.keys(meter.byKind())).toHaveLength(10);
  });
});
