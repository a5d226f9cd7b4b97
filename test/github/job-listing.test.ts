import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncompleteListingError } from '../../lib/errors.js';
import { createClientFactory } from '../../lib/github/client.js';
import { listJobs, listJobsIfChanged, listJobsTagged } from '../../lib/github/job-listing.js';
import { repoRequests } from '../../lib/github/repo-requests.js';
import { MemoryLog } from '../support/memory-log.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

const ATTEMPT_JOBS = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs';
const LATEST_JOBS = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs';

describe('listJobs (simulator)', () => {
  let gh: SimRepo;
  simRepoForTests((r) => (gh = r));

  const calls = () => gh.requests();

  it('every job of a 250-job attempt, over three pages, as facts', async () => {
    const run = gh.sim.addRun({
      repo: gh.repo,
      jobs: Array.from({ length: 250 }, (_, i) => ({
        name: `shard ${i}`,
        conclusion: i === 7 ? ('failure' as const) : ('success' as const),
        runnerName: `r-${i}`,
        runnerGroup: 'spot',
      })),
    });
    const jobs = await listJobs(calls(), ATTEMPT_JOBS, { run_id: run.id, attempt_number: 1 }, 1, 'the run');
    expect(jobs).toHaveLength(250);
    expect(gh.sim.count('GET', /\/jobs/)).toBe(3);
    const lost = jobs.find((j) => j.name === 'shard 7')!;
    expect(lost).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      runnerName: 'r-7',
      runnerGroupName: 'spot',
      runAttempt: 1,
    });
    expect(typeof lost.nodeId).toBe('string');
    expect(typeof lost.completedAt).toBe('string');
  });

  it('the latest jobs carry the attempt each ran in', async () => {
    const run = gh.sim.addRun({ repo: gh.repo, runAttempt: 3, jobs: [{ name: 'unit', conclusion: 'failure' }] });
    const jobs = await listJobs(calls(), LATEST_JOBS, { run_id: run.id, filter: 'latest' }, undefined, 'latest');
    expect(jobs.map((j) => j.runAttempt)).toEqual([3]);
  });

  it('a queued job has no runner, start or completion yet', async () => {
    const run = gh.sim.addRun({
      repo: gh.repo,
      status: 'queued',
      jobs: [{ name: 'wait', conclusion: null, status: 'queued', runnerName: null }],
    });
    const [job] = await listJobs(calls(), ATTEMPT_JOBS, { run_id: run.id, attempt_number: 1 }, 1, 'the run');
    expect(job).toMatchObject({ status: 'queued', conclusion: null, runnerName: null, completedAt: null });
  });
});

describe('a listing asked again on its ETag (simulator)', () => {
  let gh: SimRepo;
  simRepoForTests((r) => (gh = r));
  const latest = (runId: number) => [LATEST_JOBS, { run_id: runId, filter: 'latest' }, undefined, 'latest'] as const;
  const statuses = () => gh.sim.requests.filter((r) => r.path.endsWith('/jobs')).map((r) => r.status);

  it('a one-page listing keeps its ETag; asked again on it, an unchanged listing is GitHub’s 304 (free of rate limit), not a listing', async () => {
    const run = gh.sim.addRun({ repo: gh.repo, jobs: [{ name: 'unit', conclusion: 'failure' }] });
    const first = await listJobsTagged(gh.requests(), ...latest(run.id));
    expect(first.jobs.map((j) => j.name)).toEqual(['unit']);
    expect(first.etag).toMatch(/^W\/"[0-9a-f]{64}"$/);
    expect(await listJobsIfChanged(gh.requests(), ...latest(run.id), first.etag!)).toEqual({ kind: 'unchanged' });
    expect(statuses()).toEqual([200, 304]);
  });

  it('a listing that changed (a person re-ran the run meanwhile) comes in full, the new attempt seen, with its new ETag', async () => {
    const run = gh.sim.addRun({ repo: gh.repo, jobs: [{ name: 'unit', conclusion: 'failure' }] });
    const first = await listJobsTagged(gh.requests(), ...latest(run.id));
    expect(await gh.api().rerunFailedJobs(run.id)).toMatchObject({ accepted: true });
    const again = await listJobsIfChanged(gh.requests(), ...latest(run.id), first.etag!);
    expect(again.kind).toBe('listed');
    if (again.kind !== 'listed') return;
    expect(again.jobs.map((j) => j.runAttempt)).toEqual([2]);
    expect(again.etag).toMatch(/^W\//);
    expect(again.etag).not.toBe(first.etag);
    expect(statuses()).toEqual([200, 200]);
  });

  it('a listing of more than one page keeps no ETag: a 304 on its first page would say nothing of the others', async () => {
    const jobs = Array.from({ length: 150 }, (_, i) => ({ name: `shard ${i}`, conclusion: 'success' as const }));
    const run = gh.sim.addRun({ repo: gh.repo, jobs });
    const listed = await listJobsTagged(gh.requests(), ...latest(run.id));
    expect(listed.jobs).toHaveLength(150);
    expect(listed.etag).toBeUndefined();
    expect(statuses()).toEqual([200, 200]);
  });
});

describe('listJobs: a listing shorter than its total', () => {
  // The simulator lists every job it has; GitHub has been seen to list fewer than its own
  // total_count while a run is being written. A server of three lines answers that here.
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          total_count: 3,
          jobs: [1, 2].map((id) => ({
            id,
            node_id: `CR_${id}`,
            name: `j${id}`,
            status: 'completed',
            conclusion: 'failure',
            runner_name: null,
            completed_at: null,
          })),
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is an IncompleteListingError naming how many of how many, never a decision on part of the run', async () => {
    const clients = createClientFactory({
      apiUrl: url,
      credentials: { kind: 'token', token: 't' },
      log: new MemoryLog(),
      retryBaseMs: 1,
    })(1);
    const calls = repoRequests(
      clients,
      { owner: 'acme', repo: 'short', graphqlUrl: `${url}/graphql` },
      () => undefined,
    );
    const listing = listJobs(calls, ATTEMPT_JOBS, { run_id: 5, attempt_number: 2 }, 2, 'run 5 attempt 2');
    await expect(listing).rejects.toBeInstanceOf(IncompleteListingError);
    await expect(listJobs(calls, ATTEMPT_JOBS, { run_id: 5, attempt_number: 2 }, 2, 'run 5 attempt 2')).rejects.toThrow(
      'listed 2 of 3 jobs of run 5 attempt 2',
    );
  });
});
