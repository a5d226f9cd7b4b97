import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { composeIntake } from '../../lib/compose/intake.js';
import { composeReconciler } from '../../lib/compose/reconciler.js';
import { composeEc2SignalRecorder, composeSignalIntake } from '../../lib/compose/signals.js';
import { composeWorker } from '../../lib/compose/worker.js';
import { deploymentSettings } from '../../lib/config/env.js';
import { intakeSettings } from '../../lib/config/function-settings.js';
import { openIntakeLedger, openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import type { RunQueue } from '../../lib/queue/run-queue.js';
import { MemoryLog } from '../support/memory-log.js';
import { ledgerMessage } from './support.js';

const TABLE = 'ledger-test';
let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo.close());
afterEach(() => vi.restoreAllMocks());

const T = Date.parse('2026-11-03T08:00:00Z');
const msg = ledgerMessage(1);
const BREAKER = { minOutcomes: 5, lostShare: 0.5, windowMs: 3_600_000, coolDownMs: 600_000 };

/** The document clients made, and the clients every command was sent through. */
function watchDocumentClients() {
  const from = vi.spyOn(DynamoDBDocumentClient, 'from');
  const senders = new Set<unknown>();
  const send = DynamoDBDocumentClient.prototype.send;
  vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(function (
    this: DynamoDBDocumentClient,
    ...args: Parameters<typeof send>
  ) {
    senders.add(this);
    return (send as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof send);
  return { made: () => from.mock.calls.length, senders };
}

describe('openLedger: the one entry point to the table', () => {
  it('opens every store the processes use, each working on the table, through one document client', async () => {
    const watch = watchDocumentClients();
    const ledger = openLedger(dynamo.client, TABLE, () => T);
    expect(watch.made()).toBe(1);

    await ledger.deliveries.markSeen('guid-1', 'workflow_run');
    expect(await ledger.deliveries.isSeen('guid-1')).toBe(true);
    expect(await ledger.attempts.claim(msg, 'w', 60_000)).toEqual({ claimed: true });
    expect(await ledger.attempts.finalise(msg, 'w', 'genuine_failure', 'test')).toBe(true);
    expect((await ledger.decisions.list()).map((d) => d.runId)).toEqual([1]);
    expect((await ledger.report.facts(T - 1)).decisions).toHaveLength(1);
    expect(await ledger.requeues.claim({ repoId: 9, pullRequest: 3, headSha: 'h', groupSha: 'g' }, 2)).toBe('claimed');
    const branch = { installationId: 7, repoId: 9, workflowId: 1, branch: 'main' };
    expect(await ledger.branchRuns.record(branch, { runId: 1, runNumber: 4, headSha: 'abc' })).toBe(true);
    await ledger.queuedJobs.queued({
      installationId: 7,
      repoId: 9,
      repository: 'acme/web',
      runId: 1,
      runAttempt: 1,
      jobId: 5,
      name: 'build',
      workflowName: 'ci',
      headSha: 'abc',
      labels: ['self-hosted'],
    });
    expect((await ledger.queuedJobs.list()).map((j) => j.jobId)).toEqual([5]);
    expect(await ledger.budget(2).take(7, 'k')).toEqual({ taken: true });
    expect(await ledger.pacing({ perMinute: 10, perHour: 0, spacingMs: 100 }).reserve(7)).toBe(T);
    expect((await ledger.outcomes(BREAKER).state(7)).openUntil).toBeNull();
    const signal = { runnerKey: 'i-1', kind: 'spot-interruption', eventTime: new Date(T).toISOString() } as const;
    expect(await ledger.runnerSignals(3600).record({ ...signal, eventId: 'e', source: 'test' })).toBe(true);
    const job = { jobId: 5, runId: 1, runnerName: 'i-1', repository: 'acme/web' };
    await ledger.runnerJobs().started(job, ['i-1']);
    expect(await ledger.runnerJobs().runningOn(['i-1'])).toMatchObject([job]);
    await ledger.reconcile(() => T).saveCursor('sweep', { at: 1 });
    expect(
      await ledger
        .at(() => T + 1)
        .reconcile(() => T)
        .cursor('sweep'),
    ).toEqual({ at: 1 });

    // Stores made later, and the ledger on another clock, still share the one client.
    expect(watch.made()).toBe(1);
    expect(watch.senders.size).toBe(1);
  });

  it('on another clock the stores write that clock’s time, over the same client', async () => {
    const ledger = openLedger(dynamo.client, TABLE, () => T);
    const watch = watchDocumentClients();
    const later = ledger.at(() => T + 5_000);
    const m = { ...msg, runId: 2 };
    await later.attempts.claim(m, 'w', 1_000);
    expect(await ledger.attempts.get(9, 2, 1)).toMatchObject({ claimedAt: T + 5_000, leaseUntil: T + 6_000 });
    expect(watch.made()).toBe(0);
    expect(watch.senders.size).toBe(1);
  });

  it('two ledgers opened on one DynamoDB client share its document client; another DynamoDB client gets its own', () => {
    const watch = watchDocumentClients();
    openLedger(dynamo.client, TABLE);
    openLedger(dynamo.client, TABLE);
    expect(watch.made()).toBe(0);
    const other = new DynamoDBClient({ region: 'local' });
    openLedger(other, TABLE);
    openLedger(other, TABLE);
    expect(watch.made()).toBe(1);
    other.destroy();
  });

  it('every process assembled on one ledger makes no document client of its own', () => {
    const ledger = openLedger(dynamo.client, TABLE);
    const watch = watchDocumentClients();
    const settings = deploymentSettings({});
    const queue: RunQueue = { send: async () => undefined };
    const obs = { log: new MemoryLog(), metrics: new MemoryMetrics() };
    const noClient = () => {
      throw new Error('no GitHub here');
    };
    composeIntake(intakeSettings({}), { ledger, queue, secrets: async () => ['s'], ...obs });
    composeSignalIntake({ ttlSeconds: 60, toleranceMs: 1_000 }, { ledger, secrets: async () => [], ...obs });
    composeEc2SignalRecorder({ ttlSeconds: 60, tagKeys: [] }, { ledger, describe: async () => undefined, ...obs });
    composeWorker(settings, { ledger, client: noClient, owner: 'w', defer: async () => undefined, ...obs });
    composeReconciler(settings, { ledger, queue, client: noClient, ...obs });
    expect(watch.made()).toBe(0);
  });
});

describe('openIntakeLedger: the intake’s stores alone', () => {
  it('opens the stores the intake uses on one document client, reading what the whole ledger wrote', async () => {
    const watch = watchDocumentClients();
    const intake = openIntakeLedger(dynamo.client, TABLE, () => T);
    expect(Object.keys(intake).sort()).toEqual(
      ['branchRuns', 'deliveries', 'outcomes', 'queuedJobs', 'recoveries', 'runnerJobs'].sort(),
    );
    const request = {
      v: 1 as const,
      kind: 'recovery' as const,
      installationId: 7,
      repository: { id: 9, owner: 'acme', name: 'app' },
      runId: 77,
      jobId: 5,
      runnerName: 'r',
      trigger: 'signal' as const,
    };
    await openLedger(dynamo.client, TABLE, () => T).recoveries.awaitSiblings(request);
    expect(await intake.recoveries.waiting(9, 77)).toEqual(request);
    await intake.deliveries.markSeen('guid-intake', 'workflow_job');
    expect(await intake.deliveries.isSeen('guid-intake')).toBe(true);
    // The client's one document client, shared with the whole ledger opened on it.
    expect(watch.senders.size).toBe(1);
  });
});
