import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../lib/errors.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

let gh: SimRepo;
simRepoForTests((r) => (gh = r));

describe('RepoApi reads a run (simulator)', () => {
  it('getRun: the run as facts', async () => {
    const run = gh.sim.addRun({
      repo: gh.repo,
      event: 'pull_request',
      jobs: [{ name: 'unit', conclusion: 'failure' }],
    });
    const api = gh.api();
    const facts = await api.getRun(run.id);
    expect(facts).toMatchObject({
      id: run.id,
      status: 'completed',
      conclusion: 'failure',
      runAttempt: 1,
      event: 'pull_request',
    });
    expect(typeof facts.workflowId).toBe('number');
    expect(api.requests).toBe(1);
  });

  it('getRun, runRecord and latestJobs of a run GitHub does not know: NotFoundError', async () => {
    const api = gh.api();
    await expect(api.getRun(99_999_999)).rejects.toBeInstanceOf(NotFoundError);
    await expect(api.runRecord(99_999_999)).rejects.toBeInstanceOf(NotFoundError);
    await expect(api.latestJobs(99_999_999)).rejects.toBeInstanceOf(NotFoundError);
    await expect(api.jobStatus(99_999_999)).rejects.toBeInstanceOf(NotFoundError);
    await expect(api.latestJobsIfChanged(99_999_999, 'W/"0"')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('latestJobs carries the listing’s ETag; latestJobsIfChanged on it is unchanged (a 304, counted as sent), and listed again once the run moved on', async () => {
    const run = gh.sim.addRun({ repo: gh.repo, jobs: [{ name: 'unit', conclusion: 'failure' }] });
    const api = gh.api();
    const { etag } = await api.latestJobs(run.id);
    expect(etag).toMatch(/^W\/"/);
    expect(await api.latestJobsIfChanged(run.id, etag!)).toEqual({ kind: 'unchanged' });
    // The decision line counts what was sent, 304s included.
    expect(api.requests).toBe(2);
    await api.rerunFailedJobs(run.id);
    const again = await api.latestJobsIfChanged(run.id, etag!);
    expect(again).toMatchObject({ kind: 'listed', jobs: [expect.objectContaining({ name: 'unit', runAttempt: 2 })] });
  });

  it('runRecord: the run, or one attempt of it, as GitHub reports it', async () => {
    const run = gh.sim.addRun({ repo: gh.repo, runAttempt: 2, jobs: [{ name: 'unit', conclusion: 'failure' }] });
    const api = gh.api();
    expect((await api.runRecord(run.id)).run_attempt).toBe(2);
    expect((await api.runRecord(run.id, 1)).run_attempt).toBe(1);
    expect(gh.sim.count('GET', new RegExp(`/actions/runs/${run.id}/attempts/1$`))).toBe(1);
  });

  it('the jobs of one attempt, and the latest jobs with the attempt each ran in', async () => {
    const run = gh.sim.addRun({
      repo: gh.repo,
      runAttempt: 2,
      jobs: [
        { name: 'unit', conclusion: 'failure', runnerName: 'r-1' },
        { name: 'lint', conclusion: 'success' },
      ],
    });
    const api = gh.api();
    const attempt = await api.listAttemptJobs(run.id, 2);
    expect(attempt.map((j) => [j.name, j.conclusion, j.runAttempt])).toEqual(
      expect.arrayContaining([
        ['unit', 'failure', 2],
        ['lint', 'success', 2],
      ]),
    );
    expect(attempt.find((j) => j.name === 'unit')?.runnerName).toBe('r-1');
    const { jobs: latest } = await api.latestJobs(run.id);
    expect(latest.map((j) => j.name).sort()).toEqual(['lint', 'unit']);
    expect(gh.sim.count('GET', new RegExp(`/actions/runs/${run.id}/jobs`))).toBe(1);
  });

  it("jobStatus: one job's status", async () => {
    const run = gh.sim.addRun({ repo: gh.repo, status: 'in_progress', jobs: [{ name: 'unit', conclusion: null }] });
    const [job] = gh.sim.run(run.id).jobs;
    expect(await gh.api().jobStatus(job!.id)).toBe('in_progress');
  });
});

describe('RepoApi reads around a run (simulator)', () => {
  it("workflowRuns: the workflow's runs on a branch, newest facts first as GitHub lists them", async () => {
    const first = gh.sim.addRun({
      repo: gh.repo,
      headBranch: 'feature',
      jobs: [{ name: 'unit', conclusion: 'failure' }],
    });
    gh.sim.addRun({ repo: gh.repo, headBranch: 'other', jobs: [{ name: 'unit', conclusion: 'failure' }] });
    const facts = await gh.api().getRun(first.id);
    const runs = await gh.api().workflowRuns(facts.workflowId, { branch: 'feature' });
    expect(runs.map((r) => r.id)).toContain(first.id);
    expect(runs.every((r) => r.headBranch === 'feature')).toBe(true);
    const mine = runs.find((r) => r.id === first.id)!;
    expect(mine.headSha).toBe(facts.headSha);
    expect(typeof mine.headRepositoryId).toBe('number');
    const bySha = await gh.api().workflowRuns(facts.workflowId, { headSha: facts.headSha });
    expect(bySha.map((r) => r.id)).toContain(first.id);
  });

  it('pullRequest: open or not, and its head', async () => {
    gh.sim.addPullRequest(gh.repo, { number: 7, state: 'open', headSha: 'a'.repeat(40), headRef: 'topic' });
    gh.sim.addPullRequest(gh.repo, { number: 8, state: 'closed', headSha: 'b'.repeat(40), headRef: 'old' });
    expect(await gh.api().pullRequest(7)).toEqual({ open: true, headSha: 'a'.repeat(40) });
    expect(await gh.api().pullRequest(8)).toEqual({ open: false, headSha: 'b'.repeat(40) });
  });
});

describe('RepoApi re-run calls (simulator)', () => {
  it('rerunFailedJobs is accepted once, and one POST was sent', async () => {
    const run = gh.sim.addRun({ repo: gh.repo, jobs: [{ name: 'unit', conclusion: 'failure' }] });
    const api = gh.api();
    expect(await api.rerunFailedJobs(run.id)).toEqual({ call: 'failed_jobs', accepted: true });
    expect(api.requests).toBe(1);
    expect(gh.sim.rerunTally(run.id)).toEqual({ received: 1, accepted: 1, repeats: 0 });
  });

  it('rerunJob and rerunRun name their call', async () => {
    const run = gh.sim.addRun({ repo: gh.repo, jobs: [{ name: 'unit', conclusion: 'cancelled' }] });
    const [job] = gh.sim.run(run.id).jobs;
    expect(await gh.api().rerunJob(job!.id)).toEqual({ call: 'job', accepted: true });
    const other = gh.sim.addRun({ repo: gh.repo, jobs: [{ name: 'unit', conclusion: 'failure' }] });
    expect(await gh.api().rerunRun(other.id)).toEqual({ call: 'run', accepted: true });
  });

  it('every request of the API is counted, the failed ones too', async () => {
    gh.sim.injectFault({ method: 'GET', path: /\/pulls\/41$/, status: 404, times: 1 });
    const api = gh.api();
    await expect(api.pullRequest(41)).rejects.toMatchObject({ status: 404 });
    expect(api.requests).toBe(1);
  });
});
