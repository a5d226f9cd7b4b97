import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type JobOnRunner, RunnerJobTable } from '../ledger/runner-jobs.js';
import { RunnerKeys } from './runner-keys.js';

export type { JobOnRunner } from '../ledger/runner-jobs.js';

/**
 * Which jobs are running on which runner, from `workflow_job` events. It lets an interruption
 * warning count the jobs it is about to kill, minutes before their runs complete.
 */
export class JobRunnerStore {
  private readonly jobs: RunnerJobTable;

  constructor(
    client: DynamoDBClient,
    table: string,
    now: () => number = Date.now,
    private readonly keys: RunnerKeys = new RunnerKeys(),
  ) {
    this.jobs = new RunnerJobTable(client, table, now);
  }

  /** One item per runner key (the name and the instance id in it): the signal side looks up any. */
  async started(job: JobOnRunner): Promise<void> {
    for (const key of this.keys.for(job.runnerName)) await this.jobs.put(key, job);
  }

  async finished(job: JobOnRunner): Promise<void> {
    for (const key of this.keys.for(job.runnerName)) await this.jobs.delete(key, job.jobId);
  }

  /** Jobs still running on any of these runner keys, each counted once. */
  async runningOn(runnerKeys: readonly string[]): Promise<JobOnRunner[]> {
    const seen = new Map<number, JobOnRunner>();
    for (const key of runnerKeys) for (const job of await this.jobs.list(key)) seen.set(job.jobId, job);
    return [...seen.values()];
  }
}

/** The job and its runner from a `workflow_job` payload, or why it carries none. */
export function jobOnRunnerFrom(payload: Record<string, unknown>): JobOnRunner | string {
  const job = payload.workflow_job as Record<string, unknown> | undefined;
  const repo = payload.repository as Record<string, unknown> | undefined;
  if (!job || typeof job.id !== 'number' || typeof job.run_id !== 'number') return 'not a workflow_job payload';
  if (typeof job.runner_name !== 'string' || job.runner_name === '') return 'no runner assigned yet';
  return {
    jobId: job.id,
    runId: job.run_id,
    runnerName: job.runner_name,
    repository: typeof repo?.full_name === 'string' ? repo.full_name : '',
  };
}
