import { describe, expect, it } from 'vitest';
import { ledgerForFile } from './support.js';
import { keys, TTL } from '../../lib/ledger/keys.js';
import { Table } from '../../lib/ledger/table.js';

const TABLE = 'runner-jobs-test';
const T = Date.parse('2026-11-03T08:00:00Z');
const db = ledgerForFile(TABLE, () => T);

const job = (jobId: number, runnerName: string) => ({ jobId, runId: 100 + jobId, runnerName, repository: 'acme/web' });
const plain = <T extends object>(items: T[]) =>
  items.map(({ pk: _pk, sk: _sk, ttl: _ttl, ...rest }: T & { pk?: unknown; sk?: unknown; ttl?: unknown }) => rest);

describe('jobs on runners', () => {
  it('a started job is found under every key the caller gives, under its TTL; a finished one under none', async () => {
    const jobs = db.ledger.runnerJobs();
    const a = job(1, 'pool-3-runner-i-0abc12345');
    const runnerKeys = ['pool-3-runner-i-0abc12345', 'i-0abc12345', 'pool-3'];
    await jobs.started(a, runnerKeys);
    expect(plain(await jobs.runningOn(['i-0abc12345']))).toEqual([a]);
    expect(plain(await jobs.runningOn(['pool-3']))).toEqual([a]);
    expect(plain(await jobs.runningOn(['pool-3-runner-i-0abc12345']))).toEqual([a]);
    const item = await new Table(db.dynamo.client, TABLE).get(keys.runnerJob('pool-3', 1), true);
    expect(item).toMatchObject({ ttl: Math.floor(T / 1000) + TTL.jobRunner });
    await jobs.finished(a, runnerKeys);
    expect(await jobs.runningOn(['i-0abc12345', 'pool-3', 'pool-3-runner-i-0abc12345'])).toEqual([]);
  });

  it('a job found under several of the keys asked is counted once', async () => {
    const jobs = db.ledger.runnerJobs();
    const b = job(2, 'runner-i-0def67890');
    const c = job(3, 'runner-i-0def67890');
    await jobs.started(b, ['runner-i-0def67890', 'i-0def67890']);
    await jobs.started(c, ['runner-i-0def67890', 'i-0def67890']);
    const found = await jobs.runningOn(['runner-i-0def67890', 'i-0def67890']);
    expect(found.map((j) => j.jobId).sort()).toEqual([2, 3]);
  });
});
