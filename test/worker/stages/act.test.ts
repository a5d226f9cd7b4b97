import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../../lib/errors.js';
import type { RerunAnswer } from '../../../lib/model.js';
import type { Judged } from '../../../lib/worker/evaluate.js';
import { act, type CallMarks } from '../../../lib/worker/rerun-calls.js';
import { cancelledJob, config, failedJob, jobVerdict, runMessage } from '../../core/fixtures.js';
import { fakeRepoApi, fakeWorld } from '../../support/fakes/context.js';

const msg = runMessage();
const judgedFor = (jobs = [failedJob()], cancelledOnly = false): [Judged, Judged['step'] & { kind: 'rerun' }] => {
  const step = { kind: 'rerun', reason: 'runner lost', cancelledOnly, evidence: 'text' } as const;
  return [
    {
      step,
      facts: { message: msg, config: config(), jobs },
      verdicts: jobs.map((j) => jobVerdict(j, 'infra')),
      unexamined: 0,
      config: config(),
      priorRequests: 0,
    },
    step,
  ];
};
const marks = (): CallMarks => ({ sent: false, calling: false });

describe('the act: one POST per re-run call', () => {
  it('an accepted call re-runs the run, and marks it sent and no longer out', async () => {
    const w = fakeWorld();
    const api = fakeRepoApi({
      rerunFailedJobs: async (): Promise<RerunAnswer> => ({ call: 'failed_jobs', accepted: true }),
    });
    const m = marks();
    const [judged, step] = judgedFor();
    expect(await act(msg, judged, step, api, w.ctx, m)).toEqual({
      decision: 'retried',
      reason: 'runner lost; rerun-failed-jobs accepted',
    });
    expect(m).toEqual({ sent: true, calling: false });
    expect(api.readsSent).toEqual(['rerunFailedJobs']);
  });

  it('a refusal is GitHub’s answer, not sent again: rerun_rejected with the refusal', async () => {
    const w = fakeWorld();
    const api = fakeRepoApi({
      rerunFailedJobs: async (): Promise<RerunAnswer> => ({
        call: 'failed_jobs',
        accepted: false,
        refusal: 'created over a month ago',
      }),
    });
    const [judged, step] = judgedFor();
    const done = await act(msg, judged, step, api, w.ctx, marks());
    expect(done).toMatchObject({
      decision: 'rerun_rejected',
      reason: expect.stringMatching(/created over a month ago/),
    });
    expect(api.readsSent).toEqual(['rerunFailedJobs']);
  });

  it('a refused cancelled-only run falls back to its single job', async () => {
    const w = fakeWorld();
    const job = cancelledJob();
    const api = fakeRepoApi({
      rerunFailedJobs: async (): Promise<RerunAnswer> => ({ call: 'failed_jobs', accepted: false, refusal: 'none' }),
      rerunJob: async (): Promise<RerunAnswer> => ({ call: 'job', accepted: true }),
    });
    const [judged, step] = judgedFor([job], true);
    expect((await act(msg, judged, step, api, w.ctx, marks())).decision).toBe('retried');
    expect(api.readsSent).toEqual(['rerunFailedJobs', 'rerunJob']);
  });

  it('a call that faults is left out: the marks say GitHub may have acted', async () => {
    const w = fakeWorld();
    const m = marks();
    const api = fakeRepoApi({ rerunFailedJobs: () => Promise.reject(new Error('socket hang up')) });
    const [judged, step] = judgedFor();
    await expect(act(msg, judged, step, api, w.ctx, m)).rejects.toThrow('socket hang up');
    expect(m).toEqual({ sent: true, calling: true });
  });

  it('a rate limit on the call is thrown as it is, for the caller to give the claim back', async () => {
    const w = fakeWorld();
    const api = fakeRepoApi({ rerunFailedJobs: () => Promise.reject(new RateLimitedError(60_000)) });
    const [judged, step] = judgedFor();
    await expect(act(msg, judged, step, api, w.ctx, marks())).rejects.toBeInstanceOf(RateLimitedError);
  });
});
