import { describe, expect, it } from 'vitest';
import type { RepoConfig } from '../../lib/config/repo-config.js';
import { afterRerun } from '../../lib/decide/rerun-outcome.js';
import { RERUN_REFUSALS, refusalText } from '../../lib/github/rerun-call.js';
import type { DecisionKind, JobFacts, RerunAnswer, RerunCall } from '../../lib/model.js';
import { cancelledJob, config, failedJob } from '../support/fixtures.js';

const lost = failedJob({ id: 101, name: 'test (1)' });
const cancelledA = cancelledJob({ id: 201, name: 'test (2)' });
const cancelledB = cancelledJob({ id: 202, name: 'test (3)' });

const MESSAGES: Record<number, string> = {
  403: 'This workflow run cannot be rerun',
  404: 'Not Found',
  409: 'The workflow run is already being re-run',
  422: 'Unable to retry this workflow run because it was created over a month ago',
};

/** GitHub's answer as the adapter hands it over: accepted on a 2xx, a refusal in GitHub's words. */
const answer = (call: RerunCall, status: number, message?: string): RerunAnswer =>
  status >= 200 && status < 300
    ? { call, accepted: true }
    : { call, accepted: false, refusal: refusalText(status, message) };

describe('a 2xx answer is a re-run', () => {
  it.each([
    ['failed_jobs', 201, 'retried'],
    ['failed_jobs', 204, 'retried'],
    ['failed_jobs', 200, 'retried'],
    ['job', 201, 'retried'],
    ['run', 201, 'retried_all'],
  ] as const)('%s answered %i → %s', (call, status, decision) => {
    const next = afterRerun(answer(call, status), [lost], false, config());
    expect(next).toMatchObject({ kind: 'final', decision });
  });
});

describe('403/404/409/422 on rerun-failed-jobs → rerun_rejected with GitHub’s message and a hint', () => {
  describe.each([403, 404, 409, 422])('%i', (status) => {
    const message = MESSAGES[status] ?? '';

    it('a candidate ended failure: the hint says already re-run or too old', () => {
      const next = afterRerun(answer('failed_jobs', status, message), [lost, cancelledA], false, config());
      expect(next).toMatchObject({ kind: 'final', decision: 'rerun_rejected' });
      const reason = next.kind === 'final' ? next.reason : '';
      expect(reason).toContain(`GitHub said ${status}: ${message}`);
      expect(reason).toMatch(/a candidate ended failure/);
      expect(reason).toMatch(/already re-run/);
      expect(reason).toMatch(/too old/);
    });

    it('every candidate was cancelled (several, no fallback): the hint says GitHub may see no failed job', () => {
      const next = afterRerun(answer('failed_jobs', status, message), [cancelledA, cancelledB], true, config());
      expect(next).toMatchObject({ kind: 'final', decision: 'rerun_rejected' });
      const reason = next.kind === 'final' ? next.reason : '';
      expect(reason).toContain(`GitHub said ${status}: ${message}`);
      expect(reason).toMatch(/every candidate was cancelled/);
      expect(reason).toMatch(/GitHub may see no failed job/);
      expect(reason).toMatch(/rerun_all_fallback/);
    });

    it('a failed candidate never falls back, even with rerun_all_fallback', () => {
      const next = afterRerun(
        answer('failed_jobs', status, message),
        [lost],
        false,
        config({ rerunAllFallback: true }),
      );
      expect(next).toMatchObject({ kind: 'final', decision: 'rerun_rejected' });
    });
  });

  it('without a message from GitHub the status is still reported', () => {
    const next = afterRerun(answer('failed_jobs', 404), [lost], false, config());
    expect(next.kind === 'final' && next.reason).toMatch(/^rerun-failed-jobs refused \(GitHub answered 404\);/);
  });

  it.each([403, 404, 409, 422])('%i is a refusal the adapter answers with', (status) => {
    expect(RERUN_REFUSALS.has(status)).toBe(true);
  });

  it.each([400, 401, 429, 500, 502, 503])(
    '%i is no refusal: the adapter lets it fail and the message is retried',
    (status) => {
      expect(RERUN_REFUSALS.has(status)).toBe(false);
    },
  );
});

/**
 * Drives afterRerun as the worker does: call rerun-failed-jobs, then follow each fallback call
 * with GitHub's scripted answer, and report the calls made and the final decision.
 */
function drive(
  candidates: readonly JobFacts[],
  cancelledOnly: boolean,
  cfg: RepoConfig,
  answers: Partial<Record<RerunCall, number>>,
): { calls: string[]; decision: DecisionKind } {
  const status = (call: RerunCall): number => answers[call] ?? 201;
  const calls = ['failed_jobs'];
  let got = answer('failed_jobs', status('failed_jobs'), 'refused');
  for (let i = 0; i < 5; i++) {
    const next = afterRerun(got, candidates, cancelledOnly, cfg);
    if (next.kind === 'final') return { calls, decision: next.decision };
    calls.push(next.call === 'job' ? `job ${next.jobId}` : 'run');
    got = answer(next.call, status(next.call), 'refused');
  }
  throw new Error('afterRerun did not settle');
}

describe('cancelled-only runs: fallback when rerun-failed-jobs is refused', () => {
  it.each([
    {
      rule: 'one cancelled candidate: that job is re-run → retried',
      candidates: [cancelledA],
      cfg: config(),
      answers: { failed_jobs: 422 },
      calls: ['failed_jobs', 'job 201'],
      decision: 'retried',
    },
    {
      rule: 'one cancelled candidate, rerun_all_fallback on: still only that job',
      candidates: [cancelledA],
      cfg: config({ rerunAllFallback: true }),
      answers: { failed_jobs: 403 },
      calls: ['failed_jobs', 'job 201'],
      decision: 'retried',
    },
    {
      rule: 'several cancelled candidates with rerun_all_fallback: the whole run → retried_all',
      candidates: [cancelledA, cancelledB],
      cfg: config({ rerunAllFallback: true }),
      answers: { failed_jobs: 422 },
      calls: ['failed_jobs', 'run'],
      decision: 'retried_all',
    },
    {
      rule: 'several cancelled candidates without the fallback: rerun_rejected, no further call',
      candidates: [cancelledA, cancelledB],
      cfg: config(),
      answers: { failed_jobs: 422 },
      calls: ['failed_jobs'],
      decision: 'rerun_rejected',
    },
    {
      rule: 'the single-job fallback refused too: rerun_rejected, no loop',
      candidates: [cancelledA],
      cfg: config(),
      answers: { failed_jobs: 422, job: 403 },
      calls: ['failed_jobs', 'job 201'],
      decision: 'rerun_rejected',
    },
    {
      rule: 'item 4: one cancelled candidate, rerun_all_fallback on, the single job refused too: the whole run → retried_all',
      candidates: [cancelledA],
      cfg: config({ rerunAllFallback: true }),
      answers: { failed_jobs: 403, job: 403 },
      calls: ['failed_jobs', 'job 201', 'run'],
      decision: 'retried_all',
    },
    {
      rule: 'item 4: failed jobs, the single job and the whole run all refused: rerun_rejected, one call each, no loop',
      candidates: [cancelledA],
      cfg: config({ rerunAllFallback: true }),
      answers: { failed_jobs: 403, job: 403, run: 422 },
      calls: ['failed_jobs', 'job 201', 'run'],
      decision: 'rerun_rejected',
    },
    {
      rule: 'the whole-run fallback refused too: rerun_rejected, no loop',
      candidates: [cancelledA, cancelledB],
      cfg: config({ rerunAllFallback: true }),
      answers: { failed_jobs: 422, run: 409 },
      calls: ['failed_jobs', 'run'],
      decision: 'rerun_rejected',
    },
    {
      rule: 'rerun-failed-jobs accepted on a cancelled-only run: no fallback needed',
      candidates: [cancelledA, cancelledB],
      cfg: config({ rerunAllFallback: true }),
      answers: { failed_jobs: 201 },
      calls: ['failed_jobs'],
      decision: 'retried',
    },
  ] as const)('$rule', ({ candidates, cfg, answers, calls, decision }) => {
    expect(drive(candidates, true, cfg, answers)).toEqual({ calls, decision });
  });

  it('a run with a failed candidate refused: rerun_rejected without a fallback call', () => {
    expect(drive([lost, cancelledA], false, config({ rerunAllFallback: true }), { failed_jobs: 409 })).toEqual({
      calls: ['failed_jobs'],
      decision: 'rerun_rejected',
    });
  });
});

describe('a refused fallback: the reason names every refused call', () => {
  /** The final reason after rerun-failed-jobs and then the fallback `call` were both refused. */
  function refusedTwice(
    call: 'job' | 'run',
    candidates: readonly JobFacts[],
    cfg = config({ rerunAllFallback: true }),
  ): string {
    const first = answer('failed_jobs', 422, 'There are no failed jobs to re-run');
    const next = afterRerun(first, candidates, true, cfg);
    expect(next).toMatchObject({ kind: 'call', call });
    const last = afterRerun(answer(call, 403, 'This run is too old to be re-run'), candidates, true, cfg, [first]);
    expect(last.kind).toBe('final');
    return (last as { decision: DecisionKind; reason: string }).reason;
  }

  it('the whole-run fallback refused too: both refusals named, and no "(rerun_all_fallback re-runs the whole run)"', () => {
    const reason = refusedTwice('run', [cancelledA, cancelledB]);
    expect(reason).toMatch(
      /^rerun-failed-jobs refused \(GitHub said 422: There are no failed jobs to re-run\); the whole-run fallback refused \(GitHub said 403: This run is too old to be re-run\); the whole run could not be re-run either/,
    );
    expect(reason).not.toMatch(/rerun_all_fallback re-runs the whole run/);
  });

  it('the single-job fallback refused too: both refusals named', () => {
    const reason = refusedTwice('job', [cancelledA], config());
    expect(reason).toMatch(
      /^rerun-failed-jobs refused \(GitHub said 422: .*\); the single-job fallback refused \(GitHub said 403: .*\); the cancelled job could not be re-run either/,
    );
    expect(reason).not.toMatch(/rerun_all_fallback/);
  });

  it('item 4: all three refused with rerun_all_fallback: the reason names the three refusals in order', () => {
    const cfg = config({ rerunAllFallback: true });
    const first = answer('failed_jobs', 403, 'There are no failed jobs to re-run');
    const job = answer('job', 403, 'This job cannot be re-run');
    expect(afterRerun(job, [cancelledA], true, cfg, [first])).toEqual({ kind: 'call', call: 'run' });
    const last = afterRerun(answer('run', 422, 'Too old'), [cancelledA], true, cfg, [first, job]);
    expect(last.kind === 'final' && last.reason).toMatch(
      /^rerun-failed-jobs refused \(GitHub said 403: .*\); the single-job fallback refused \(GitHub said 403: .*\); the whole-run fallback refused \(GitHub said 422: Too old\); the whole run could not be re-run either/,
    );
  });
});
