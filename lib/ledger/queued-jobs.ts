import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { keys, TTL, ttlFrom } from './keys.js';
import type { QueuedJob, QueuedJobLog, QueuedJobRecord } from '../ports.js';
import { Table } from './table.js';

/**
 * Jobs waiting for a runner, one item each in one partition. Every write is a single item: the
 * `queued` put keeps the first time (a redelivery changes nothing), and the report mark is
 * conditional, so of two sweeps at once one reports the job.
 */
export class DynamoQueuedJobs implements QueuedJobLog {
  private readonly table: Table;

  constructor(
    client: DynamoDBClient,
    tableName: string,
    private readonly now: () => number = Date.now,
  ) {
    this.table = new Table(client, tableName);
  }

  async queued(job: QueuedJob): Promise<void> {
    const now = this.now();
    await this.table.putIf(
      { ...keys.queuedJob(job.repoId, job.jobId), ...job, queuedAt: now, ttl: ttlFrom(now, TTL.queuedJob) },
      { expression: 'attribute_not_exists(#pk)' },
    );
  }

  clear(repoId: number, jobId: number): Promise<void> {
    return this.table.delete(keys.queuedJob(repoId, jobId));
  }

  async list(): Promise<QueuedJobRecord[]> {
    const items = await this.table.query<QueuedJobRecord & { pk?: string; sk?: string; ttl?: number }>(
      keys.queuedJobs(),
      true,
    );
    return items.map(({ pk: _pk, sk: _sk, ttl: _ttl, ...rest }) => rest);
  }

  markReported(job: QueuedJobRecord): Promise<boolean> {
    return this.table.updateIf(
      keys.queuedJob(job.repoId, job.jobId),
      'SET #reportedAt = :at',
      { ':at': this.now() },
      { expression: 'attribute_exists(#pk) AND attribute_not_exists(#reportedAt)' },
    );
  }
}
