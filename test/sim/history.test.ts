import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator, type SimRun } from './index.js';
import { createdFilter } from './routes-actions.js';

describe('the simulator keeps a run history', () => {
  let sim: GitHubSimulator;
  let token: string;
  let run: SimRun;
  const get = async (path: string) => {
    const res = await fetch(`${sim.url}${path}`, { headers: { authorization: `token ${token}` } });
    return (await res.json()) as Record<string, unknown>;
  };

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: 9, account: 'acme', repos: ['hist', 'other'] });
    token = sim.issueToken(9);
    run = sim.addRunHistory({
      repo: 'acme/hist',
      attempts: [
        {
          jobs: [
            { name: 'build', conclusion: 'success' },
            { name: 'test', conclusion: 'failure' },
          ],
          startedAt: '2026-03-01T10:00:00Z',
          completedAt: '2026-03-01T10:09:00Z',
        },
        {
          jobs: [{ name: 'test', conclusion: 'success' }],
          actor: { login: 'dependabot[bot]', type: 'Bot' },
          startedAt: '2026-03-01T11:00:00Z',
          completedAt: '2026-03-01T11:05:00Z',
        },
      ],
    });
    sim.addRunHistory({
      repo: 'acme/hist',
      attempts: [
        {
          jobs: [{ name: 'build', conclusion: 'success' }],
          startedAt: '2026-02-01T10:00:00Z',
          completedAt: '2026-02-01T10:05:00Z',
        },
      ],
    });
    sim.addRun({ repo: 'acme/outside', jobs: [{ name: 'build', conclusion: 'success' }] });
  });
  afterAll(async () => {
    await sim.close();
  });

  it("each attempt has its own triggering_actor, run_started_at and updated_at; the run's actor started attempt 1", async () => {
    const one = await get(`/repos/acme/hist/actions/runs/${run.id}/attempts/1`);
    const two = await get(`/repos/acme/hist/actions/runs/${run.id}`);
    expect(one).toMatchObject({ run_attempt: 1, conclusion: 'failure', run_started_at: '2026-03-01T10:00:00Z' });
    expect(one.updated_at).toBe('2026-03-01T10:09:00Z');
    expect(two).toMatchObject({ run_attempt: 2, conclusion: 'success', run_started_at: '2026-03-01T11:00:00Z' });
    expect(two.triggering_actor).toMatchObject({ login: 'dependabot[bot]', type: 'Bot' });
    expect(two.actor).toMatchObject({ login: 'octocat', type: 'User' });
  });

  it('a later attempt runs again the jobs it names and keeps the others, as a re-run of failed jobs does', async () => {
    const jobs = (await get(`/repos/acme/hist/actions/runs/${run.id}/attempts/2/jobs`)).jobs as {
      name: string;
      run_attempt: number;
    }[];
    expect(jobs.map((j) => [j.name, j.run_attempt])).toEqual([
      ['build', 1],
      ['test', 2],
    ]);
  });

  it('lists runs by the created filter in GitHub date syntax', async () => {
    const since = (await get('/repos/acme/hist/actions/runs?created=%3E%3D2026-02-15')).workflow_runs as {
      id: number;
    }[];
    expect(since.map((r) => r.id)).toEqual([run.id]);
    const range = (await get('/repos/acme/hist/actions/runs?created=2026-01-01..2026-02-01')).total_count;
    expect(range).toBe(1);
    expect(createdFilter('>2026-03-01')?.('2026-03-01T23:00:00Z')).toBe(false);
    expect(createdFilter('<2026-03-01')?.('2026-02-28T23:59:59Z')).toBe(true);
    expect(createdFilter('yesterday')).toBeNull();
  });

  it("lists the installation's repositories to its token, and refuses a token of no installation", async () => {
    const body = await get('/installation/repositories');
    expect((body.repositories as { full_name: string }[]).map((r) => r.full_name)).toEqual(['acme/hist']);
    sim.addToken('ghp_personal');
    const res = await fetch(`${sim.url}/installation/repositories`, {
      headers: { authorization: 'token ghp_personal' },
    });
    expect(res.status).toBe(403);
  });
});
