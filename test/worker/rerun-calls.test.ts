import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../lib/errors.js';
import type { RerunAnswer } from '../../lib/model.js';
import type { Judged } from '../../lib/worker/evaluate.js';
import { act } from '../../lib/worker/rerun-calls.js';
import { SentRequestError } from '../../lib/worker/sent-request-error.js';
import { cancelledJob, config, failedJob, jobVerdict, runMessage } from '../support/fixtures.js';
import { fakeRepoApi, fakeWorld } from '../support/fakes/context.js';

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

describe('the act: one POST per re-run call', () => {
  it('an accepted call re-runs the run, and says it was sent', async () => {
    const w = fakeWorld();
    const api = fakeRepoApi({
      rerunFailedJobs: async (): Promise<RerunAnswer> => ({ call: 'failed_jobs', accepted: true }),
    });
    const [judged, step] = judgedFor();
    expect(await act(msg, judged, step, api, w.ctx)).toEqual({
      decision: 'retried',
      reason: 'runner lost; rerun-failed-jobs accepted',
      sent: true,
    });
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
    const done = await act(msg, judged, step, api, w.ctx);
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
    expect((await act(msg, judged, step, api, w.ctx)).decision).toBe('retried');
    expect(api.readsSent).toEqual(['rerunFailedJobs', 'rerunJob']);
  });

  it('a call that faults is thrown as sent and in flight: GitHub may have acted', async () => {
    const w = fakeWorld();
    const cause = new Error('socket hang up');
    const api = fakeRepoApi({ rerunFailedJobs: () => Promise.reject(cause) });
    const [judged, step] = judgedFor();
    const fault = await act(msg, judged, step, api, w.ctx).catch((e: unknown) => e);
    expect(fault).toBeInstanceOf(SentRequestError);
    expect(fault).toMatchObject({ cause, inFlight: true, message: 'socket hang up' });
  });

  it('a rate limit on the call is thrown as sent with the rate limit its cause, for the caller to give the claim back', async () => {
    const w = fakeWorld();
    const api = fakeRepoApi({ rerunFailedJobs: () => Promise.reject(new RateLimitedError(60_000)) });
    const [judged, step] = judgedFor();
    const fault = await act(msg, judged, step, api, w.ctx).catch((e: unknown) => e);
    expect(fault).toBeInstanceOf(SentRequestError);
    expect((fault as SentRequestError).cause).toBeInstanceOf(RateLimitedError);
  });
});
