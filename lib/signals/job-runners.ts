import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys, TTL, ttlFrom } from '../ledger/keys.js';
import { runnerKeysFor } from './runner-keys.js';

export interface JobOnRunner {
  readonly jobId: number;
  readonly runId: number;
  readonly runnerName: string;
  readonly repository: string;
}

/**
 * Which jobs are running on which runner, from `workflow_job` events. It lets an interruption
 * warning count the jobs it is about to kill, minutes before their runs complete.
 */
export class JobRunnerStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
    private readonly now: () => number = Date.now,
  ) {
    this.doc = DynamoDBDocumentClient.from(client);
  }

  /** One item per runner key (the name and the instance id in it): the signal side looks up either. */
  async started(job: JobOnRunner): Promise<void> {
    for (const key of runnerKeysFor(job.runnerName)) {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.runnerJob(key, job.jobId), ...job, ttl: ttlFrom(this.now(), TTL.jobRunner) },
        }),
      );
    }
  }

  async finished(job: JobOnRunner): Promise<void> {
    for (const key of runnerKeysFor(job.runnerName)) {
      await this.doc.send(new DeleteCommand({ TableName: this.table, Key: keys.runnerJob(key, job.jobId) }));
    }
  }

  /** Jobs still running on any of these runner keys, each counted once. */
  async runningOn(runnerKeys: readonly string[]): Promise<JobOnRunner[]> {
    const seen = new Map<number, JobOnRunner>();
    for (const key of runnerKeys) {
      const res = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.runnerJobPrefix(key) },
        }),
      );
      for (const item of res.Items ?? []) seen.set(item.jobId as number, item as JobOnRunner);
    }
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
