import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../lib/errors.js';
import { FORCE_CANCEL_REFUSALS, forceCancelCall } from '../../lib/github/force-cancel.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

let gh: SimRepo;
simRepoForTests((r) => (gh = r));

const FORCE_CANCEL = /\/force-cancel$/;
const runningRun = () =>
  gh.sim.addRun({ repo: gh.repo, status: 'in_progress', jobs: [{ name: 'unit', conclusion: null }] }).id;

describe('forceCancelCall (simulator)', () => {
  it('an accepted call ends the run without its runners', async () => {
    const runId = runningRun();
    expect(await forceCancelCall(gh.requests(), runId)).toEqual({ kind: 'accepted' });
    expect(gh.sim.run(runId).status).toBe('completed');
    expect(gh.sim.cancelRequests).toContainEqual(expect.objectContaining({ kind: 'force-cancel', runId, status: 202 }));
  });

  it("a run already completed is refused with GitHub's words (409), not a fault", async () => {
    const runId = gh.sim.addRun({ repo: gh.repo, jobs: [{ name: 'unit', conclusion: 'failure' }] }).id;
    const answer = await forceCancelCall(gh.requests(), runId);
    expect(answer).toEqual({ kind: 'refused', refusal: expect.stringMatching(/^GitHub said 409: /) });
  });

  it.each([403, 404, 409, 422])('%i is a refusal, sent once', async (status) => {
    const runId = runningRun();
    gh.sim.injectFault({ method: 'POST', path: FORCE_CANCEL, status, message: 'not here' });
    expect(await forceCancelCall(gh.requests(), runId)).toEqual({
      kind: 'refused',
      refusal: `GitHub said ${status}: not here`,
    });
    expect(gh.sim.count('POST', FORCE_CANCEL)).toBe(1);
  });

  it.each([500, 502, 503])('%i is a fault answered, not thrown, and never sent again in-process', async (status) => {
    const runId = runningRun();
    gh.sim.injectFault({ method: 'POST', path: FORCE_CANCEL, status, message: 'broken', times: 5 });
    expect(await forceCancelCall(gh.requests(), runId)).toEqual({
      kind: 'fault',
      fault: `GitHub said ${status}: broken`,
    });
    expect(gh.sim.count('POST', FORCE_CANCEL)).toBe(1);
    expect(gh.sim.run(runId).status).toBe('in_progress');
  });

  it('a rate limit is thrown, as for a re-run', async () => {
    const runId = runningRun();
    gh.sim.injectFault({ method: 'POST', path: FORCE_CANCEL, status: 429, retryAfter: 3600, times: 5 });
    await expect(forceCancelCall(gh.requests(), runId)).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('the refusals are the re-run refusals: 403, 404, 409 and 422; a 5xx or 429 is not one', () => {
    expect([...FORCE_CANCEL_REFUSALS].sort()).toEqual([403, 404, 409, 422]);
    expect(FORCE_CANCEL_REFUSALS.has(429)).toBe(false);
    expect(FORCE_CANCEL_REFUSALS.has(500)).toBe(false);
  });
});
