import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attemptOf,
  createdSince,
  failedAttempt,
  type HistoryRecord,
  installationRepositories,
  listedRun,
  listRuns,
} from '../../lib/backtest/history.js';
import { GitHubSimulator } from '../sim/index.js';
import { attempt } from './support.js';
import { simContext } from './support.js';

/** A run's record as GitHub's REST API answers it, with the fields a backtest reads. */
const record = (over: Partial<HistoryRecord> = {}): HistoryRecord =>
  ({
    id: 31,
    name: 'CI',
    path: '.github/workflows/ci.yml',
    workflow_id: 7,
    run_attempt: 2,
    status: 'completed',
    conclusion: 'failure',
    event: 'pull_request',
    head_sha: 'abc',
    head_branch: 'topic',
    created_at: '2026-03-01T10:00:00Z',
    run_started_at: '2026-03-01T11:00:00Z',
    updated_at: '2026-03-01T11:08:00Z',
    html_url: 'https://github.com/acme/web/actions/runs/31',
    pull_requests: [{ number: 4 }, { number: 5 }],
    repository: { id: 99 },
    triggering_actor: { login: 'bob', type: 'User' },
    ...over,
  }) as unknown as HistoryRecord;

describe('history: what a run record says of its attempt', () => {
  it('an attempt: its number, start, completion (updated_at) and who started it', () => {
    expect(attemptOf(record())).toEqual({
      number: 2,
      status: 'completed',
      conclusion: 'failure',
      startedAt: '2026-03-01T11:00:00Z',
      completedAt: '2026-03-01T11:08:00Z',
      actor: { login: 'bob', bot: false },
    });
  });

  it('a bot is a Bot type or a [bot] login; a missing actor, attempt or start falls back', () => {
    expect(attemptOf(record({ triggering_actor: { login: 'ci-app', type: 'Bot' } })).actor).toEqual({
      login: 'ci-app',
      bot: true,
    });
    expect(attemptOf(record({ triggering_actor: { login: 'renovate[bot]', type: 'User' } })).actor?.bot).toBe(true);
    const bare = attemptOf(
      record({ triggering_actor: null, run_attempt: undefined, run_started_at: undefined, status: null }),
    );
    expect(bare).toMatchObject({ number: 1, status: 'unknown', startedAt: '2026-03-01T10:00:00Z', actor: null });
  });

  it('a listed run takes the repository it was listed from, its pull request numbers and its latest attempt', () => {
    expect(listedRun(record(), { owner: 'acme', name: 'web' })).toEqual({
      repository: { id: 99, owner: 'acme', name: 'web' },
      id: 31,
      workflowId: 7,
      workflowName: 'CI',
      workflowPath: '.github/workflows/ci.yml',
      event: 'pull_request',
      headSha: 'abc',
      headBranch: 'topic',
      createdAt: '2026-03-01T10:00:00Z',
      pullRequests: [4, 5],
      htmlUrl: 'https://github.com/acme/web/actions/runs/31',
      latest: attemptOf(record()),
    });
    expect(
      listedRun(record({ pull_requests: null, path: undefined, name: null }), { owner: 'a', name: 'b' }),
    ).toMatchObject({
      pullRequests: [],
      workflowPath: null,
      workflowName: '',
    });
  });

  it("GitHub's created filter starts at the period's start, to the second", () => {
    expect(createdSince(Date.parse('2026-03-01T10:00:00.750Z'))).toBe('>=2026-03-01T10:00:00Z');
  });

  it('a failed attempt is a completed one that failed or was cancelled', () => {
    const t = '2026-03-01T10:00:00Z';
    expect(failedAttempt(attempt(1, t, t))).toBe(true);
    expect(failedAttempt(attempt(1, t, t, { conclusion: 'cancelled' }))).toBe(true);
    expect(failedAttempt(attempt(1, t, t, { conclusion: 'success' }))).toBe(false);
    expect(failedAttempt(attempt(1, t, t, { conclusion: 'timed_out' }))).toBe(false);
    expect(failedAttempt(attempt(1, t, t, { status: 'in_progress', conclusion: null }))).toBe(false);
  });
});

describe('history: reading GitHub', () => {
  let sim: GitHubSimulator;
  const now = Date.now();
  const at = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString();

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: 5, account: 'acme', repos: ['web', 'api'] });
    for (let i = 0; i < 105; i++) {
      sim.addRunHistory({
        repo: 'acme/web',
        attempts: [{ jobs: [{ name: 'b', conclusion: 'success' }], startedAt: at(1), completedAt: at(1) }],
      });
    }
    sim.addRunHistory({
      repo: 'acme/web',
      attempts: [{ jobs: [{ name: 'b', conclusion: 'failure' }], startedAt: at(40), completedAt: at(40) }],
    });
    sim.addRunHistory({
      repo: 'acme/api',
      attempts: [{ jobs: [{ name: 'b', conclusion: 'failure' }], startedAt: at(2), completedAt: at(2) }],
    });
  });
  afterAll(async () => {
    await sim.close();
  });

  it("every run created since the period's start, past one page, each of its own repository", async () => {
    const { clients } = simContext(sim, 5);
    const web = await listRuns(clients, { owner: 'acme', name: 'web' }, now - 30 * 86_400_000);
    expect(web).toHaveLength(105);
    expect(new Set(web.map((r) => r.id)).size).toBe(105);
    expect(web.every((r) => r.repository.owner === 'acme' && r.repository.name === 'web')).toBe(true);
    const api = await listRuns(clients, { owner: 'acme', name: 'api' }, now - 30 * 86_400_000);
    expect(api.map((r) => r.latest.conclusion)).toEqual(['failure']);
  });

  it("the installation's repositories, by owner and name", async () => {
    const { clients } = simContext(sim, 5);
    const repos = await installationRepositories(clients);
    expect(repos.map((r) => `${r.owner}/${r.name}`).sort()).toEqual(['acme/api', 'acme/web']);
  });
});
