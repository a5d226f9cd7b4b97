import { describe, expect, it } from 'vitest';
import { RERUN_REFUSALS, refusalText, rerunCall } from '../../lib/github/rerun-call.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

let gh: SimRepo;
simRepoForTests((r) => (gh = r));

const calls = () => gh.requests();
const failedRun = () => gh.sim.addRun({ repo: gh.repo, jobs: [{ name: 'unit', conclusion: 'failure' }] }).id;

describe('rerunCall (simulator)', () => {
  it('an accepted call is an answer, and GitHub starts the next attempt', async () => {
    const runId = failedRun();
    expect(await rerunCall(calls(), 'failed_jobs', { run_id: runId })).toEqual({ call: 'failed_jobs', accepted: true });
    expect(gh.sim.run(runId).runAttempt).toBe(2);
  });

  it("GitHub's refusal is an answer quoting GitHub's words: the same re-run asked for twice", async () => {
    const runId = failedRun();
    await rerunCall(calls(), 'failed_jobs', { run_id: runId });
    const again = await rerunCall(calls(), 'failed_jobs', { run_id: runId });
    expect(again.accepted).toBe(false);
    expect(again).toMatchObject({ call: 'failed_jobs', refusal: expect.stringMatching(/^GitHub said 403: /) });
  });

  it.each([403, 404, 409, 422])('%i is a refusal, sent once', async (status) => {
    const runId = failedRun();
    gh.sim.injectFault({ method: 'POST', path: /\/rerun$/, status, message: 'refused here' });
    expect(await rerunCall(calls(), 'run', { run_id: runId })).toEqual({
      call: 'run',
      accepted: false,
      refusal: `GitHub said ${status}: refused here`,
    });
    expect(gh.sim.count('POST', /\/rerun$/)).toBe(1);
  });

  it.each([500, 502, 503])('%i is a fault: thrown, never sent again in-process (it may have acted)', async (status) => {
    const runId = failedRun();
    gh.sim.injectFault({ method: 'POST', path: /\/rerun-failed-jobs$/, status, times: 5 });
    await expect(rerunCall(calls(), 'failed_jobs', { run_id: runId })).rejects.toMatchObject({ status });
    expect(gh.sim.count('POST', /\/rerun-failed-jobs$/)).toBe(1);
  });
});

describe('refusalText and the refusals', () => {
  it("quotes GitHub's message when it gave one", () => {
    expect(refusalText(403, 'No failed jobs to re-run')).toBe('GitHub said 403: No failed jobs to re-run');
    expect(refusalText(422, undefined)).toBe('GitHub answered 422');
    expect(refusalText(409, '')).toBe('GitHub answered 409');
  });

  it('403, 404, 409 and 422 refuse; a 5xx or 429 does not', () => {
    expect([...RERUN_REFUSALS].sort()).toEqual([403, 404, 409, 422]);
    expect(RERUN_REFUSALS.has(429)).toBe(false);
    expect(RERUN_REFUSALS.has(500)).toBe(false);
  });
});
