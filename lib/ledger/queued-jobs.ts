import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { keys, TTL, ttlFrom } from './keys.js';
import type { QueuedJob, QueuedJobRecord } from '../records.js';
import { Table } from './table.js';

/**
 * Jobs waiting for a runner: recorded from `queued`, forgotten on `in_progress` or `completed`,
 * reported stuck by the reconciler's sweep at most once each.
 */
export interface QueuedJobLog {
  /** Records the job; a repeated `queued` keeps the first time. */
  queued(job: QueuedJob): Promise<void>;
  /** Forgets the job: a runner picked it up, or it ended. */
  clear(repoId: number, jobId: number): Promise<void>;
  /** Every job waiting now, reported or not. */
  list(): Promise<QueuedJobRecord[]>;
  /** True for the one caller that marks it reported; false when already reported or cleared meanwhile. */
  markReported(job: QueuedJobRecord): Promise<boolean>;
}

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
