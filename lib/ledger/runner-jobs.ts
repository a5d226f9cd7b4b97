import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { keys, TTL, ttlFrom } from './keys.js';
import { Table } from './table.js';

export interface JobOnRunner {
  readonly jobId: number;
  readonly runId: number;
  readonly runnerName: string;
  readonly repository: string;
}

/** Jobs in progress, one item per runner key and job, from `workflow_job` events. */
export class RunnerJobTable {
  private readonly table: Table;

  constructor(
    client: DynamoDBClient,
    tableName: string,
    private readonly now: () => number = Date.now,
  ) {
    this.table = new Table(client, tableName);
  }

  async put(runnerKey: string, job: JobOnRunner): Promise<void> {
    await this.table.put({ ...keys.runnerJob(runnerKey, job.jobId), ...job, ttl: ttlFrom(this.now(), TTL.jobRunner) });
  }

  delete(runnerKey: string, jobId: number): Promise<void> {
    return this.table.delete(keys.runnerJob(runnerKey, jobId));
  }

  list(runnerKey: string): Promise<JobOnRunner[]> {
    return this.table.query<JobOnRunner>(keys.runnerJobs(runnerKey));
  }
}
