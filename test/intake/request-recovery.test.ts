import { describe, expect, it } from 'vitest';
import { recoveryRequestFor, requestRecovery } from '../../lib/intake/request-recovery.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import type { QueueMessage } from '../../lib/model.js';
import type { JobOnRunner } from '../../lib/records.js';
import { MemoryLog } from '../support/memory-log.js';

const job: JobOnRunner = {
  jobId: 7,
  runId: 70,
  runnerName: 'runner-i-0abc12345',
  repository: 'acme/web',
  repositoryId: 9,
  installationId: 4242,
};

/** A queue that keeps what is sent to it, with its group and deduplication ids. */
function keptQueue() {
  const sent: { message: QueueMessage; groupId: string; deduplicationId: string }[] = [];
  return {
    sent,
    queue: {
      send: async (message: QueueMessage, groupId: string, deduplicationId: string) => {
        sent.push({ message, groupId, deduplicationId });
      },
    },
  };
}

describe('requestRecovery: from a signal to the work queue', () => {
  it('sends one request per job on the lost runner, in the run’s recovery group, counted', async () => {
    const { sent, queue } = keptQueue();
    const metrics = new MemoryMetrics();
    const to = { queue, log: new MemoryLog(), metrics };
    const jobs = [job, { ...job, jobId: 8 }];
    expect(await requestRecovery(jobs, { kind: 'spot-interruption', eventId: 'e-1' }, to)).toBe(2);
    expect(sent.map((s) => (s.message as { jobId: number }).jobId)).toEqual([7, 8]);
    expect(sent[0]!.groupId).toBe('9#70#recovery');
    expect(metrics.get('RecoveryRequested')).toBe(2);
  });

  it('the same event sends the same deduplication id again: a retried delivery reaches the worker once', async () => {
    const { sent, queue } = keptQueue();
    const to = { queue, log: new MemoryLog(), metrics: new MemoryMetrics() };
    await requestRecovery([job], { kind: 'terminated', eventId: 'e-2' }, to);
    await requestRecovery([job], { kind: 'terminated', eventId: 'e-2' }, to);
    expect(sent[0]!.deduplicationId).toBe(sent[1]!.deduplicationId);
  });

  it('a rebalance recommendation asks for nothing, nor does a record that predates the ids a request needs', async () => {
    const { sent, queue } = keptQueue();
    const to = { queue, log: new MemoryLog(), metrics: new MemoryMetrics() };
    expect(await requestRecovery([job], { kind: 'rebalance', eventId: 'e-3' }, to)).toBe(0);
    const { repositoryId: _id, ...old } = job;
    expect(recoveryRequestFor(old)).toBeUndefined();
    expect(await requestRecovery([old], { kind: 'terminated', eventId: 'e-4' }, to)).toBe(0);
    expect(sent).toEqual([]);
  });
});
