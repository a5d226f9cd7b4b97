import { describe, expect, it } from 'vitest';
import { decide } from '../../lib/decide/decide.js';
import { runFromLatestJobs } from '../../lib/decide/run-from-jobs.js';
import type { JobFacts, RunMessage } from '../../lib/model.js';
import { config, job, runFacts, runMessage } from '../support/fixtures.js';

const passed = (over: Partial<JobFacts> = {}): JobFacts => job({ conclusion: 'success', ...over });
const lost = (over: Partial<JobFacts> = {}): JobFacts => job({ conclusion: 'failure', ...over });
const msg2 = runMessage({ runAttempt: 2 });
const withoutCreatedAt = (m: RunMessage): RunMessage => {
  const { createdAt: _dropped, ...rest } = m;
  return rest;
};

describe('the run read off its latest jobs (the listing stands in for GET run)', () => {
  it.each([
    {
      rule: 'every job of the decided attempt, all completed: the run is completed at that attempt',
      msg: runMessage(),
      jobs: [passed(), lost()],
      expected: { status: 'completed', runAttempt: 1, conclusion: 'failure' },
    },
    {
      rule: 'jobs kept from an earlier attempt are listed with their own attempt; the newest one is the run’s',
      msg: msg2,
      jobs: [passed({ runAttempt: 1 }), lost({ runAttempt: 2 })],
      expected: { status: 'completed', runAttempt: 2, conclusion: 'failure' },
    },
    {
      rule: 'a job listed for a newer attempt: the run moved on (a re-run by a person or another tool)',
      msg: runMessage(),
      jobs: [passed({ runAttempt: 1 }), lost({ runAttempt: 2 })],
      expected: { status: 'completed', runAttempt: 2, conclusion: null },
    },
    {
      rule: 'a newer attempt still running: the run is not completed, and is at that attempt',
      msg: runMessage(),
      jobs: [passed({ runAttempt: 1 }), job({ runAttempt: 2, status: 'queued', conclusion: null })],
      expected: { status: 'queued', runAttempt: 2, conclusion: null },
    },
    {
      rule: 'a job of the decided attempt still in progress: the run is not completed',
      msg: runMessage(),
      jobs: [passed(), job({ status: 'in_progress', conclusion: null })],
      expected: { status: 'in_progress', runAttempt: 1, conclusion: null },
    },
  ])('$rule', ({ msg, jobs, expected }) => {
    const run = runFromLatestJobs(msg, jobs);
    expect(run).toEqual(
      runFacts({
        ...expected,
        id: msg.runId,
        event: msg.event,
        headSha: msg.headSha,
        headBranch: msg.headBranch,
        workflowId: msg.workflow.id,
        createdAt: msg.createdAt!,
      }),
    );
  });

  it.each([
    { rule: 'no jobs listed (a run that failed before any job started)', msg: runMessage(), jobs: [] },
    { rule: 'a job listed without its attempt', msg: runMessage(), jobs: [lost({ runAttempt: 0 })] },
    {
      rule: 'no job as recent as the decided attempt: the listing does not show it',
      msg: msg2,
      jobs: [passed({ runAttempt: 1 }), lost({ runAttempt: 1 })],
    },
    {
      rule: 'a message without the run’s creation time (enqueued before it was carried): staleness needs it',
      msg: withoutCreatedAt(runMessage()),
      jobs: [lost()],
    },
  ])('cannot answer for the run, so the run is read: $rule', ({ msg, jobs }) => {
    expect(runFromLatestJobs(msg, jobs)).toBeUndefined();
  });

  it.each([
    {
      rule: 'a newer attempt listed → duplicate, never a re-run on the older attempt’s evidence',
      jobs: [passed({ runAttempt: 1 }), lost({ runAttempt: 2 })],
      expected: 'duplicate',
    },
    {
      rule: 'a newer attempt running → duplicate',
      jobs: [lost({ runAttempt: 1 }), job({ runAttempt: 2, status: 'in_progress', conclusion: null })],
      expected: 'duplicate',
    },
    {
      rule: 'the decided attempt still running → run_incomplete',
      jobs: [lost(), job({ status: 'in_progress', conclusion: null })],
      expected: 'run_incomplete',
    },
  ])('decide() on the derived run: $rule', ({ jobs, expected }) => {
    const msg = runMessage();
    const run = runFromLatestJobs(msg, jobs)!;
    const step = decide({ message: msg, config: config(), run, jobs, budget: { limit: 0, used: 0 } });
    expect(step.kind === 'final' && step.decision).toBe(expected);
  });
});
