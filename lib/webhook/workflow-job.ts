/**
 * A `workflow_job` delivery, read once: the job as the stuck-queued record holds it, and the job
 * on its runner as the runner-jobs record holds it, each with the reason it is not there.
 */
import type { JobOnRunner, QueuedJob } from '../records.js';
import type { Obj } from './fields.js';

/** What a `workflow_job` delivery says, each part read from the payload or the reason it is not there. */
export interface WorkflowJobDelivery {
  /** The job waiting for (or leaving) a runner, or why the payload names no repository. */
  readonly queued: QueuedJob | string;
  /** The job and the runner it runs on, or why it carries no runner yet. */
  readonly onRunner: JobOnRunner | string;
}

/** Reads a `workflow_job` delivery once, or answers why it is not one. */
export function readWorkflowJob(payload: Obj): WorkflowJobDelivery | string {
  const job = payload.workflow_job as Obj | undefined;
  const repo = payload.repository as Obj | undefined;
  const installation = payload.installation as Obj | undefined;
  if (!job || typeof job.id !== 'number' || typeof job.run_id !== 'number') return 'not a workflow_job payload';
  const installationId = typeof installation?.id === 'number' ? installation.id : null;
  return {
    queued: queuedJob(job, repo, installationId),
    onRunner: jobOnRunner(job, repo, installationId),
  };
}

function queuedJob(job: Obj, repo: Obj | undefined, installationId: number | null): QueuedJob | string {
  if (!repo || typeof repo.id !== 'number' || typeof repo.full_name !== 'string') return 'no repository';
  return {
    installationId,
    repoId: repo.id,
    repository: repo.full_name,
    runId: job.run_id as number,
    runAttempt: typeof job.run_attempt === 'number' ? job.run_attempt : 1,
    jobId: job.id as number,
    name: typeof job.name === 'string' ? job.name : String(job.id),
    workflowName: typeof job.workflow_name === 'string' ? job.workflow_name : null,
    headSha: typeof job.head_sha === 'string' ? job.head_sha : '',
    labels: Array.isArray(job.labels) ? job.labels.filter((l): l is string => typeof l === 'string') : [],
  };
}

function jobOnRunner(job: Obj, repo: Obj | undefined, installationId: number | null): JobOnRunner | string {
  if (typeof job.runner_name !== 'string' || job.runner_name === '') return 'no runner assigned yet';
  return {
    jobId: job.id as number,
    runId: job.run_id as number,
    runnerName: job.runner_name,
    repository: typeof repo?.full_name === 'string' ? repo.full_name : '',
    ...(typeof repo?.id === 'number' && { repositoryId: repo.id }),
    installationId,
  };
}
