import type { QueuedJob } from '../records.js';

/** The job a `workflow_job` payload names, as the stuck-queued record holds it, or why it names none. */
export function queuedJobFrom(payload: Record<string, unknown>): QueuedJob | string {
  const job = payload.workflow_job as Record<string, unknown> | undefined;
  const repo = payload.repository as Record<string, unknown> | undefined;
  const installation = payload.installation as Record<string, unknown> | undefined;
  if (!job || typeof job.id !== 'number' || typeof job.run_id !== 'number') return 'not a workflow_job payload';
  if (!repo || typeof repo.id !== 'number' || typeof repo.full_name !== 'string') return 'no repository';
  return {
    installationId: typeof installation?.id === 'number' ? installation.id : null,
    repoId: repo.id,
    repository: repo.full_name,
    runId: job.run_id,
    runAttempt: typeof job.run_attempt === 'number' ? job.run_attempt : 1,
    jobId: job.id,
    name: typeof job.name === 'string' ? job.name : String(job.id),
    workflowName: typeof job.workflow_name === 'string' ? job.workflow_name : null,
    headSha: typeof job.head_sha === 'string' ? job.head_sha : '',
    labels: Array.isArray(job.labels) ? job.labels.filter((l): l is string => typeof l === 'string') : [],
  };
}
