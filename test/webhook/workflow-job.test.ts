import { describe, expect, it } from 'vitest';
import { readWorkflowJob } from '../../lib/webhook/workflow-job.js';

/** The job on its runner a payload names, or why it names none, as the intake reads it. */
const jobOnRunnerFrom = (payload: Record<string, unknown>) => {
  const read = readWorkflowJob(payload);
  return typeof read === 'string' ? read : read.onRunner;
};
/** The job waiting for a runner a payload names, or why it names none. */
const queuedJobFrom = (payload: Record<string, unknown>) => {
  const read = readWorkflowJob(payload);
  return typeof read === 'string' ? read : read.queued;
};
import { realExamples } from '../support/webhooks.js';

describe('readWorkflowJob: the job on its runner', () => {
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

describe('readWorkflowJob: the job waiting for a runner', () => {
  it("GitHub's queued workflow_job example names its job as the stuck-queued record holds it", () => {
    const payload = realExamples('workflow_job').find((p) => (p as { action?: string }).action === 'queued') as Record<
      string,
      unknown
    > & {
      workflow_job: { id: number; run_id: number; run_attempt: number; name: string; labels: string[] };
      repository: { id: number; full_name: string };
      installation?: { id: number };
    };
    expect(queuedJobFrom(payload)).toMatchObject({
      installationId: payload.installation?.id ?? null,
      repoId: payload.repository.id,
      repository: payload.repository.full_name,
      runId: payload.workflow_job.run_id,
      runAttempt: payload.workflow_job.run_attempt,
      jobId: payload.workflow_job.id,
      name: payload.workflow_job.name,
      labels: payload.workflow_job.labels,
    });
  });

  it('one read answers both records, each with its own reason when it is not there', () => {
    const read = readWorkflowJob({ workflow_job: { id: 1, run_id: 2, runner_name: 'r' } });
    expect(read).toMatchObject({ queued: 'no repository', onRunner: { jobId: 1, runnerName: 'r' } });
    expect(readWorkflowJob({ workflow_job: { id: 1 } })).toBe('not a workflow_job payload');
  });

  it('fills what a payload leaves out: attempt 1, the job id as its name, no labels', () => {
    const job = queuedJobFrom({
      workflow_job: { id: 9, run_id: 2, labels: ['self-hosted', 3] },
      repository: { id: 7, full_name: 'acme/a' },
    });
    expect(job).toMatchObject({ runAttempt: 1, name: '9', workflowName: null, headSha: '', labels: ['self-hosted'] });
  });
});
