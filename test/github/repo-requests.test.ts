import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../lib/errors.js';
import { repoRequests, statusOf } from '../../lib/github/repo-requests.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

let gh: SimRepo;
simRepoForTests((r) => (gh = r));

describe('repoRequests (simulator)', () => {
  it('carries the repository, and counts every request: each page of a listing, each failure', async () => {
    let counted = 0;
    const [owner, repo] = gh.repo.split('/') as [string, string];
    const calls = repoRequests(gh.clients, { owner, repo, graphqlUrl: gh.sim.graphqlUrl }, () => void counted++);
    expect([calls.owner, calls.repo, calls.graphqlUrl]).toEqual([owner, repo, gh.sim.graphqlUrl]);

    const run = gh.sim.addRun({
      repo: gh.repo,
      jobs: Array.from({ length: 150 }, (_, i) => ({ name: `j${i}`, conclusion: 'success' as const })),
    });
    let pages = 0;
    for await (const page of calls.pages('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', { run_id: run.id })) {
      // plugin-paginate-rest hands each page over as the list itself.
      expect((page.data as unknown[]).length).toBeGreaterThan(0);
      pages++;
    }
    expect(pages).toBe(2);
    expect(counted).toBe(2);

    await calls.rest('GET /repos/{owner}/{repo}/actions/runs/{run_id}', { owner, repo, run_id: run.id });
    await expect(
      calls.rest('GET /repos/{owner}/{repo}/actions/runs/{run_id}', { owner, repo, run_id: 99_999_999 }),
    ).rejects.toMatchObject({ status: 404 });
    await calls.graphql(`POST ${calls.graphqlUrl}`, { query: '{ viewer { login } }' });
    expect(counted).toBe(5);
    expect(gh.sim.requests).toHaveLength(5);
  });
});

describe('statusOf', () => {
  it("a failed call's HTTP status; none for a rate limit or a non-HTTP fault", () => {
    expect(statusOf({ status: 404 })).toBe(404);
    expect(statusOf(Object.assign(new RateLimitedError(1000), { status: 403 }))).toBeUndefined();
    expect(statusOf(new Error('socket hang up'))).toBeUndefined();
    expect(statusOf(undefined)).toBeUndefined();
  });
});
