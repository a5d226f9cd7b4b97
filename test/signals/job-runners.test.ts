import { describe, expect, it } from 'vitest';
import { jobOnRunnerFrom } from '../../lib/signals/job-runners.js';
import { realExamples } from '../support/webhooks.js';

describe('jobOnRunnerFrom', () => {
  it("GitHub's in_progress workflow_job example names its job, run, runner and repository", () => {
    const payload = realExamples('workflow_job').find(
      (p) => (p as { action?: string }).action === 'in_progress',
    ) as Record<string, unknown> & { workflow_job: { id: number; run_id: number; runner_name: string } };
    expect(jobOnRunnerFrom(payload)).toEqual({
      jobId: payload.workflow_job.id,
      runId: payload.workflow_job.run_id,
      runnerName: payload.workflow_job.runner_name,
      repository: (payload.repository as { full_name: string }).full_name,
      repositoryId: (payload.repository as { id: number }).id,
      // The example is a repository webhook's: no App installation.
      installationId: null,
    });
  });

  it('an App delivery names its installation: early recovery acts for it', () => {
    const payload = {
      workflow_job: { id: 1, run_id: 2, runner_name: 'r' },
      repository: { id: 7, full_name: 'acme/a' },
      installation: { id: 4242 },
    };
    expect(jobOnRunnerFrom(payload)).toMatchObject({ repositoryId: 7, installationId: 4242 });
  });

  it('a queued job has no runner yet', () => {
    const payload = { workflow_job: { id: 1, run_id: 2, runner_name: null }, repository: { full_name: 'acme/a' } };
    expect(jobOnRunnerFrom(payload)).toBe('no runner assigned yet');
    expect(jobOnRunnerFrom({ ...payload, workflow_job: { id: 1, run_id: 2, runner_name: '' } })).toBe(
      'no runner assigned yet',
    );
  });

  it('another payload, or ids that are not numbers, is no workflow_job', () => {
    expect(jobOnRunnerFrom({ workflow_run: {} })).toBe('not a workflow_job payload');
    expect(jobOnRunnerFrom({ workflow_job: { id: '1', run_id: 2, runner_name: 'r' } })).toBe(
      'not a workflow_job payload',
    );
  });

  it('a payload without its repository still names the job, with an empty repository', () => {
    expect(jobOnRunnerFrom({ workflow_job: { id: 1, run_id: 2, runner_name: 'r' } })).toEqual({
      jobId: 1,
      runId: 2,
      runnerName: 'r',
      repository: '',
      installationId: null,
    });
  });
});
