import type { JobOnRunner } from '../records.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';

/**
 * Which jobs are running on which runner, from `workflow_job` events. It lets an interruption
 * warning count the jobs it is about to kill, minutes before their runs complete.
 */
export interface RunnerJobs {
  /** Records the job under each of its runner's keys (the caller derives them from the runner's name). */
  started(job: JobOnRunner, runnerKeys: readonly string[]): Promise<void>;
  /** Forgets the job under each of its runner's keys. */
  finished(job: JobOnRunner, runnerKeys: readonly string[]): Promise<void>;
  /** Jobs still running on any of these runner keys, each counted once. */
  runningOn(runnerKeys: readonly string[]): Promise<JobOnRunner[]>;
}

/**
 * Jobs in progress, one item per runner key and job: the signal side looks a runner up under any
 * key its name gives (`RunnerKeys`).
 */
export class TableRunnerJobs implements RunnerJobs {
  constructor(
    private readonly table: Table,
    private readonly now: () => number = Date.now,
  ) {}

  async started(job: JobOnRunner, runnerKeys: readonly string[]): Promise<void> {
    for (const key of runnerKeys) {
      await this.table.put({ ...keys.runnerJob(key, job.jobId), ...job, ttl: ttlFrom(this.now(), TTL.jobRunner) });
    }
  }

  async finished(job: JobOnRunner, runnerKeys: readonly string[]): Promise<void> {
    for (const key of runnerKeys) await this.table.delete(keys.runnerJob(key, job.jobId));
  }

  async runningOn(runnerKeys: readonly string[]): Promise<JobOnRunner[]> {
    const seen = new Map<number, JobOnRunner>();
    for (const key of runnerKeys) {
      for (const job of await this.table.query<JobOnRunner>(keys.runnerJobs(key))) seen.set(job.jobId, job);
    }
    return [...seen.values()];
  }
}
