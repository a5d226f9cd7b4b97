import type { JobOnRunner } from '../ledger/runner-jobs.js';

/** The job and its runner from a `workflow_job` payload, or why it carries none. */
export function jobOnRunnerFrom(payload: Record<string, unknown>): JobOnRunner | string {
  const job = payload.workflow_job as Record<string, unknown> | undefined;
  const repo = payload.repository as Record<string, unknown> | undefined;
  const installation = payload.installation as Record<string, unknown> | undefined;
  if (!job || typeof job.id !== 'number' || typeof job.run_id !== 'number') return 'not a workflow_job payload';
  if (typeof job.runner_name !== 'string' || job.runner_name === '') return 'no runner assigned yet';
  return {
    jobId: job.id,
    runId: job.run_id,
    runnerName: job.runner_name,
    repository: typeof repo?.full_name === 'string' ? repo.full_name : '',
    ...(typeof repo?.id === 'number' && { repositoryId: repo.id }),
    installationId: typeof installation?.id === 'number' ? installation.id : null,
  };
}
