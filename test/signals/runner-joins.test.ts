import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerSignalLookup } from '../../lib/signals/runner-lookup.js';
import { classifyJob } from '../../lib/classify/classify-job.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { JobFacts, RunnerSignal } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { createEc2SignalHandler } from '../../lib/intake/record-ec2-signal.js';
import type { DescribeInstance } from '../../lib/signals/runner-identities.js';
import { createSignalIntake } from '../../lib/intake/signal-intake.js';
import { DEFAULT_SIGNAL_WINDOW } from '../../lib/config/signal-settings.js';
import type { RunnerSignals } from '../../lib/ledger/runner-signals.js';
import { MemoryLog } from '../support/memory-log.js';
import { freshTable, rebalanceRecommendation, spotInterruptionWarning } from './fixtures.js';

/**
 * Joins as the worker makes them: `TableRunnerSignals.forRunner(job.runner_name, job.completed_at, window)`
 * against records the signal paths wrote. The spot warning comes two minutes before the job ends.
 */
const WARNING_AT = '2026-10-02T16:13:05Z';
const COMPLETED_AT = '2026-10-02T16:15:07Z';
const INSTANCE = 'i-0123456789abcdef0';
const DNS = 'ip-10-0-1-23.ec2.internal';
const SECRET = 'signal-secret-for-joins';

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: 'unused' });
});
afterAll(async () => {
  await dynamo?.close();
});

async function afterSpotWarning(describeInstance: DescribeInstance = async () => undefined): Promise<RunnerSignals> {
  const { store } = await freshTable(dynamo);
  const handle = createEc2SignalHandler({
    store,
    describe: describeInstance,
    tagKeys: ['ghr:runner-name'],
    log: new MemoryLog(),
    metrics: new MemoryMetrics(),
  });
  await handle(spotInterruptionWarning(WARNING_AT, INSTANCE));
  return store;
}

const found = (signals: RunnerSignal[]) => signals.map((s) => `${s.kind}@${s.runnerKey}`);

describe('runner-name joins', () => {
  it('instance-id suffix: runs-on--i-0123456789abcdef0 finds the instance-id record', async () => {
    const store = await afterSpotWarning();
    const signals = await runnerSignalLookup(store).forRunner(
      `runs-on--${INSTANCE}`,
      COMPLETED_AT,
      DEFAULT_SIGNAL_WINDOW,
    );
    expect(found(signals)).toEqual([`spot-interruption@${INSTANCE}`]);
    expect(signals[0]).toMatchObject({ instanceId: INSTANCE, source: 'aws.ec2' });
  });

  it('tag value: a runner named by an EC2 tag finds its record', async () => {
    const store = await afterSpotWarning(async () => ({ tags: { 'ghr:runner-name': 'linux-x64-7f3a' } }));
    const signals = await runnerSignalLookup(store).forRunner('linux-x64-7f3a', COMPLETED_AT, DEFAULT_SIGNAL_WINDOW);
    expect(found(signals)).toEqual(['spot-interruption@linux-x64-7f3a']);
  });

  it('private DNS name: a runner named after its Kubernetes node finds its record', async () => {
    const store = await afterSpotWarning(async () => ({ tags: {}, privateDnsName: DNS }));
    const signals = await runnerSignalLookup(store).forRunner(DNS, COMPLETED_AT, DEFAULT_SIGNAL_WINDOW);
    expect(found(signals)).toEqual([`spot-interruption@${DNS}`]);
  });

  it("external agent: a pod name posted to /signals finds the agent's record", async () => {
    const { store } = await freshTable(dynamo);
    const intake = createSignalIntake({
      secrets: async () => [SECRET],
      store,
      log: new MemoryLog(),
      metrics: new MemoryMetrics(),
      now: () => Date.parse(WARNING_AT),
    });
    const pod = 'arc-runner-set-x7k2p-runner-9fq4m';
    const res = await intake({
      method: 'POST',
      path: '/signals',
      headers: { authorization: `Bearer ${SECRET}` },
      body: Buffer.from(JSON.stringify({ runners: [pod, DNS], instance_id: INSTANCE, kind: 'node-termination' })),
    });
    expect(res.status).toBe(202);
    const signals = await runnerSignalLookup(store).forRunner(pod, COMPLETED_AT, DEFAULT_SIGNAL_WINDOW);
    expect(found(signals)).toEqual([`external@${pod}`]);
    expect(signals[0]).toMatchObject({ source: 'agent', instanceId: INSTANCE });
  });

  it.each([
    ['more than 10 minutes after the signal', '2026-10-02T16:23:06Z'],
    ['more than 5 minutes before the signal', '2026-10-02T16:08:04Z'],
  ])('a job completed %s finds nothing', async (_name, completedAt) => {
    const store = await afterSpotWarning();
    expect(
      await runnerSignalLookup(store).forRunner(`runs-on--${INSTANCE}`, completedAt, DEFAULT_SIGNAL_WINDOW),
    ).toEqual([]);
  });

  it('another runner finds nothing', async () => {
    const store = await afterSpotWarning(async () => ({ tags: {}, privateDnsName: DNS }));
    expect(
      await runnerSignalLookup(store).forRunner('runs-on--i-0fedcba9876543210', COMPLETED_AT, DEFAULT_SIGNAL_WINDOW),
    ).toEqual([]);
    expect(
      await runnerSignalLookup(store).forRunner('ip-10-0-1-24.ec2.internal', COMPLETED_AT, DEFAULT_SIGNAL_WINDOW),
    ).toEqual([]);
  });
});

describe('what the classifier makes of a joined record', () => {
  const job: JobFacts = {
    id: 1,
    nodeId: 'CR_1',
    name: 'build',
    status: 'completed',
    conclusion: 'failure',
    runnerName: `runs-on--${INSTANCE}`,
    completedAt: COMPLETED_AT,
    runAttempt: 1,
  };

  it('a spot record with no annotation and no log is infra from the signal', async () => {
    const store = await afterSpotWarning();
    const signals = await runnerSignalLookup(store).forRunner(job.runnerName, job.completedAt, DEFAULT_SIGNAL_WINDOW);
    const c = classifyJob(job, { signals, annotations: [], log: 'missing' }, []);
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'infra', source: 'signal' } });
  });

  it('a rebalance record alone is not enough', async () => {
    const { store } = await freshTable(dynamo);
    await createEc2SignalHandler({
      store,
      describe: async () => undefined,
      tagKeys: [],
      log: new MemoryLog(),
      metrics: new MemoryMetrics(),
    })({ ...rebalanceRecommendation(WARNING_AT), detail: { 'instance-id': INSTANCE } });
    const signals = await runnerSignalLookup(store).forRunner(job.runnerName, job.completedAt, DEFAULT_SIGNAL_WINDOW);
    expect(found(signals)).toEqual([`rebalance@${INSTANCE}`]);
    const c = classifyJob(job, { signals, annotations: [], log: 'missing' }, []);
    expect(c.kind === 'verdict' && c.verdict.verdict).not.toBe('infra');
  });
});
