import { describe, expect, it } from 'vitest';
import type { JobOnRunner } from '../../lib/records.js';
import type { QueueMessage, SignalKind } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { recoveryRequestFor, requestRecovery } from '../../lib/intake/request-recovery.js';
import type { RunQueue } from '../../lib/queue/run-queue.js';
import { MemoryLog } from '../support/memory-log.js';

const job = (over: Partial<JobOnRunner> = {}): JobOnRunner => ({
  jobId: 71,
  runId: 7,
  runnerName: 'spot-runner-1',
  repository: 'acme/app',
  repositoryId: 900,
  installationId: 42,
  ...over,
});

interface Sent {
  message: QueueMessage;
  groupId: string;
  deduplicationId: string;
}

function requests(refuse = false) {
  const sent: Sent[] = [];
  const queue: RunQueue = {
    send: async (message, groupId, deduplicationId) => {
      if (refuse) throw new Error('queue refused');
      sent.push({ message, groupId, deduplicationId });
    },
  };
  return { sent, to: { queue, log: new MemoryLog(), metrics: new MemoryMetrics() } };
}

describe('recoveryRequestFor: the request that asks the worker to prove a loss and end the run', () => {
  it("names the job's run, repository, installation and runner, triggered by a signal", () => {
    expect(recoveryRequestFor(job())).toEqual({
      v: 1,
      kind: 'recovery',
      installationId: 42,
      repository: { id: 900, owner: 'acme', name: 'app' },
      runId: 7,
      jobId: 71,
      runnerName: 'spot-runner-1',
      trigger: 'signal',
    });
  });

  it.each([
    ['no repository id (an older record)', { repositoryId: undefined }],
    ['no installation (an older record)', { installationId: undefined }],
    ['a repository name without its owner', { repository: 'app' }],
  ])('%s: no request', (_what, over) => {
    expect(recoveryRequestFor(job(over))).toBeUndefined();
  });
});

describe('requestRecovery: one request per job on the lost runner', () => {
  it.each<[SignalKind, number]>([
    ['spot-interruption', 2],
    ['terminated', 2],
    ['external', 2],
    ['rebalance', 0],
  ])('a %s signal sends %i requests (a rebalance is only a risk)', async (kind, expected) => {
    const { sent, to } = requests();
    const count = await requestRecovery([job(), job({ jobId: 72 })], { kind, eventId: 'ev-1' }, to);
    expect(count).toBe(expected);
    expect(sent).toHaveLength(expected);
    expect(to.metrics.get('RecoveryRequested')).toBe(expected);
  });

  it("each request goes to its run's recovery group under an id of the signal's event, so a repeat is one message", async () => {
    const { sent, to } = requests();
    await requestRecovery([job()], { kind: 'spot-interruption', eventId: 'ev-1' }, to);
    await requestRecovery([job()], { kind: 'spot-interruption', eventId: 'ev-1' }, to);
    expect(sent[0]!.groupId).toBe('900#7#recovery');
    expect(sent[1]!.deduplicationId).toBe(sent[0]!.deduplicationId);
    const other = requests();
    await requestRecovery([job()], { kind: 'spot-interruption', eventId: 'ev-2' }, other.to);
    expect(other.sent[0]!.deduplicationId).not.toBe(sent[0]!.deduplicationId);
  });

  it('skips a job whose record lacks the ids, sends the rest, and logs what it sent', async () => {
    const { sent, to } = requests();
    const count = await requestRecovery(
      [job({ repositoryId: undefined }), job({ jobId: 72 })],
      { kind: 'terminated', eventId: 'ev-3' },
      to,
    );
    expect(count).toBe(1);
    expect(sent.map((s) => s.message)).toEqual([expect.objectContaining({ kind: 'recovery', jobId: 72 })]);
    expect(to.log.named('early recovery requested')).toEqual([
      expect.objectContaining({ jobs: [71, 72], event_id: 'ev-3', sent: 1 }),
    ]);
  });

  it('without a queue to send on, nothing is sent', async () => {
    expect(await requestRecovery([job()], { kind: 'spot-interruption', eventId: 'ev-4' }, undefined)).toBe(0);
  });

  it("a queue's refusal is thrown, so the signal's delivery is retried", async () => {
    const { to } = requests(true);
    await expect(requestRecovery([job()], { kind: 'terminated', eventId: 'ev-5' }, to)).rejects.toThrow(
      'queue refused',
    );
    expect(to.metrics.get('RecoveryRequested')).toBe(0);
  });
});
