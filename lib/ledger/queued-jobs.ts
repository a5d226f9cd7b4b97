import { keys, TTL, ttlFrom } from './keys.js';
import type { QueuedJob, QueuedJobRecord } from '../records.js';
import type { Table } from './table.js';

/** The job a `clear` names: its installation's partition and its key there. */
export type QueuedJobRef = Pick<QueuedJob, 'installationId' | 'repoId' | 'jobId'>;

/**
 * Jobs waiting for a runner: recorded from `queued`, forgotten on `in_progress` or `completed`,
 * reported stuck by the reconciler's sweep at most once each.
 */
export interface QueuedJobs {
  /** Records the job; a repeated `queued` keeps the first time. */
  queued(job: QueuedJob): Promise<void>;
  /** Forgets the job: a runner picked it up, or it ended. */
  clear(job: QueuedJobRef): Promise<void>;
  /** Every job waiting now, reported or not, of every installation. */
  list(): Promise<QueuedJobRecord[]>;
  /**
   * A sweep's share: at most `perInstallation` jobs of each installation, each installation
   * resuming where its last share ended, so one installation's backlog never delays another's.
   */
  sweepShare(perInstallation: number): Promise<QueuedJobRecord[]>;
  /** True for the one caller that marks it reported; false when already reported or cleared meanwhile. */
  markReported(job: QueuedJobRecord): Promise<boolean>;
}

type Stored = QueuedJobRecord & { pk?: string; sk?: string; ttl?: number };

const record = ({ pk: _pk, sk: _sk, ttl: _ttl, ...rest }: Stored): QueuedJobRecord => rest;

/**
 * Jobs waiting for a runner, one partition per installation and one item per installation with
 * jobs in a small index partition. Every write is a single item: the `queued` put keeps the first
 * time (a redelivery changes nothing), and the report mark is conditional, so of two sweeps at
 * once one reports the job. An installation's index item lives as long as its last queued job;
 * it is never deleted, so a job queued during a sweep is never left out of the index.
 */
export class TableQueuedJobs implements QueuedJobs {
  constructor(
    private readonly table: Table,
    private readonly now: () => number = Date.now,
  ) {}

  async queued(job: QueuedJob): Promise<void> {
    const now = this.now();
    const ttl = ttlFrom(now, TTL.queuedJob);
    await this.table.putIf(
      { ...keys.queuedJob(job.installationId, job.repoId, job.jobId), ...job, queuedAt: now, ttl },
      { expression: 'attribute_not_exists(#pk)' },
    );
    await this.table.put({ ...keys.queuedInstallation(job.installationId), installationId: job.installationId, ttl });
  }

  clear(job: QueuedJobRef): Promise<void> {
    return this.table.delete(keys.queuedJob(job.installationId, job.repoId, job.jobId));
  }

  private async installations(): Promise<(number | null)[]> {
    const items = await this.table.query<{ installationId?: number | null }>(keys.queuedInstallations(), true);
    return items.map((i) => i.installationId ?? null);
  }

  async list(): Promise<QueuedJobRecord[]> {
    const out: QueuedJobRecord[] = [];
    for (const id of await this.installations()) {
      out.push(...(await this.table.query<Stored>(keys.queuedJobsAfter(id), true)).map(record));
    }
    return out;
  }

  async sweepShare(perInstallation: number): Promise<QueuedJobRecord[]> {
    const out: QueuedJobRecord[] = [];
    for (const id of await this.installations()) {
      const cursor = keys.queuedCursor(id);
      const after = (await this.table.get<{ after?: string }>(cursor, true))?.after;
      const items = await this.table.queryFirst<Stored>(keys.queuedJobsAfter(id, after), perInstallation, true);
      const ttl = ttlFrom(this.now(), TTL.queuedJob);
      // A full share resumes after its last job; a short one reached the end, so the next starts over.
      if (items.length >= perInstallation) await this.table.put({ ...cursor, after: items.at(-1)!.sk, ttl });
      else if (after !== undefined) await this.table.delete(cursor);
      out.push(...items.map(record));
    }
    return out;
  }

  markReported(job: QueuedJobRecord): Promise<boolean> {
    return this.table.updateIf(
      keys.queuedJob(job.installationId, job.repoId, job.jobId),
      'SET #reportedAt = :at',
      { ':at': this.now() },
      { expression: 'attribute_exists(#pk) AND attribute_not_exists(#reportedAt)' },
    );
  }
}
