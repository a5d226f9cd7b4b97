import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { QueuedJob } from '../../lib/records.js';

const TABLE = 'queued-jobs-test';
const T = Date.parse('2026-11-03T08:00:00Z');
let dynamo: EmbeddedDynamo;
let now = T;
let ledger: Ledger;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
  ledger = openLedger(dynamo.client, TABLE, () => now);
});
afterAll(async () => dynamo.close());

const queued = (installationId: number | null, jobId: number): QueuedJob => ({
  installationId,
  repoId: 9,
  repository: 'acme/web',
  runId: 100,
  runAttempt: 1,
  jobId,
  name: `job ${jobId}`,
  workflowName: 'ci',
  headSha: 'abc',
  labels: ['self-hosted'],
});

describe('jobs waiting for a runner', () => {
  it('a repeated `queued` keeps the first time; a cleared job is gone; no store keys leak into the records', async () => {
    now = T;
    await ledger.queuedJobs.queued(queued(1, 1));
    now = T + 1_000;
    await ledger.queuedJobs.queued(queued(1, 1));
    await ledger.queuedJobs.queued(queued(1, 2));
    const list = await ledger.queuedJobs.list();
    expect(list.find((j) => j.jobId === 1)).toEqual({ ...queued(1, 1), queuedAt: T });
    await ledger.queuedJobs.clear({ installationId: 1, repoId: 9, jobId: 1 });
    expect((await ledger.queuedJobs.list()).map((j) => j.jobId)).toEqual([2]);
  });

  it('lists the jobs of every installation, one without an installation among them', async () => {
    await ledger.queuedJobs.queued(queued(null, 3));
    await ledger.queuedJobs.queued(queued(2, 4));
    const ids = (await ledger.queuedJobs.list()).map((j) => [j.installationId, j.jobId]);
    expect(ids).toHaveLength(3);
    expect(ids).toEqual(
      expect.arrayContaining([
        [1, 2],
        [2, 4],
        [null, 3],
      ]),
    );
  });

  it('one sweep marks a job reported; a second, or a cleared job, is refused', async () => {
    const job = (await ledger.queuedJobs.list()).find((j) => j.jobId === 4)!;
    expect(await ledger.queuedJobs.markReported(job)).toBe(true);
    expect(await ledger.queuedJobs.markReported(job)).toBe(false);
    expect((await ledger.queuedJobs.list()).find((j) => j.jobId === 4)?.reportedAt).toBe(now);
    await ledger.queuedJobs.clear(job);
    expect(await ledger.queuedJobs.markReported(job)).toBe(false);
  });

  it('a sweep’s share takes at most n jobs an installation, resuming after the last, then starting over', async () => {
    for (const jobId of [11, 12, 13, 14, 15]) await ledger.queuedJobs.queued(queued(5, jobId));
    const share = async () =>
      (await ledger.queuedJobs.sweepShare(2)).filter((j) => j.installationId === 5).map((j) => j.jobId);
    expect(await share()).toEqual([11, 12]);
    expect(await share()).toEqual([13, 14]);
    expect(await share()).toEqual([15]);
    expect(await share()).toEqual([11, 12]);
  });
});
