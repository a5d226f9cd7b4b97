/**
 * Issue 43: an EC2 event for an instance that is a node of a configured EKS cluster is recorded
 * under the name of each runner pod bound to that node (Actions Runner Controller names a runner
 * after its pod), beside the instance id and tag keys; a cluster that cannot be asked still
 * leaves those records and says why.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEc2SignalHandler } from '../../lib/intake/record-ec2-signal.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { ARC_RUNNER_SELECTOR } from '../../lib/config/label-selector.js';
import { eksRunnerPods } from '../../lib/signals/eks-runner-pods.js';
import type { Ec2Event } from '../../lib/signals/ec2-events.js';
import { NODE_INSTANCE, OTHER_INSTANCE, RUNNERS_ON_NODE, seedCluster } from '../kube-sim/cluster.js';
import { KubeSim } from '../kube-sim/server.js';
import { freshTable, rebalanceRecommendation, spotInterruptionWarning, stateChange } from '../signals/fixtures.js';
import { MemoryLog } from '../support/memory-log.js';

let dynamo: EmbeddedDynamo;
let sim: KubeSim;
beforeAll(async () => {
  dynamo = await startDynamo({ table: 'unused' });
  sim = await KubeSim.start('cluster-token');
});
afterAll(async () => {
  await sim?.close();
  await dynamo?.close();
});
beforeEach(() => {
  seedCluster(sim);
  sim.access = { list: new Set(['nodes', 'pods']) };
});

/** An event of the documented shape, for another instance. */
const forInstance = (event: Ec2Event, instanceId: string): Ec2Event => ({
  ...event,
  resources: [`arn:aws:ec2:us-east-1:123456789012:instance/${instanceId}`],
  detail: { ...(event.detail as object), 'instance-id': instanceId },
});

async function setup(
  timeoutMs = 5000,
  extra: Partial<Pick<Parameters<typeof createEc2SignalHandler>[0], 'jobs' | 'recovery'>> = {},
) {
  const t = await freshTable(dynamo);
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  const handle = createEc2SignalHandler({
    store: t.store,
    // The fleet tags its instances; the tag's record is kept whatever the cluster answers.
    describe: async () => ({ tags: { 'eks:nodegroup-name': 'spot-runners' } }),
    tagKeys: ['eks:nodegroup-name'],
    log,
    metrics,
    ...extra,
    runnerPods: eksRunnerPods({
      clusters: [
        {
          name: 'prod',
          selector: ARC_RUNNER_SELECTOR,
          api: async () => ({ endpoint: sim.url, caPem: sim.certs.caPem, token: async () => 'cluster-token' }),
        },
      ],
      log,
      metrics,
      timeoutMs,
    }),
  });
  const keysRecorded = async () => (await t.items()).map((i) => i.runnerKey as string).sort();
  return { ...t, log, metrics, handle, keysRecorded };
}

describe('EC2 events for a node of an EKS cluster (issue 43)', () => {
  it.each([
    ['the spot interruption warning', spotInterruptionWarning('2026-10-02T16:13:05Z', NODE_INSTANCE)],
    ['the rebalance recommendation', forInstance(rebalanceRecommendation(), NODE_INSTANCE)],
    ['the shutting-down state change', forInstance(stateChange('shutting-down'), NODE_INSTANCE)],
  ])("%s for a node's instance records a signal under each runner pod's name", async (_name, event) => {
    const { handle, items, keysRecorded } = await setup();
    const expected = [NODE_INSTANCE, 'spot-runners', ...RUNNERS_ON_NODE].sort();
    expect(await handle(event)).toEqual({ recorded: expected.length });
    expect(await keysRecorded()).toEqual(expected);
    // The same record under each key: the event, the instance, its kind.
    for (const item of await items()) {
      expect(item).toMatchObject({ instanceId: NODE_INSTANCE, eventId: event.id, source: 'aws.ec2' });
    }
  });

  it('pods of other nodes and pods that are no runners are not recorded', async () => {
    const { handle, keysRecorded } = await setup();
    await handle(spotInterruptionWarning('2026-10-02T16:13:05Z', NODE_INSTANCE));
    const keys = await keysRecorded();
    expect(keys).not.toContain('linux-x64-7xk2p-runner-zz9q1');
    expect(keys).not.toContain('linux-x64-754b578d-listener');
    expect(keys).not.toContain('aws-node-8kq2x');
    const other = await setup();
    await other.handle(spotInterruptionWarning('2026-10-02T16:13:05Z', OTHER_INSTANCE));
    expect(await other.keysRecorded()).toEqual([OTHER_INSTANCE, 'linux-x64-7xk2p-runner-zz9q1', 'spot-runners'].sort());
  });

  it('a repeated delivery writes nothing more', async () => {
    const { handle } = await setup();
    const event = spotInterruptionWarning('2026-10-02T16:13:05Z', NODE_INSTANCE);
    await handle(event);
    expect(await handle(event)).toEqual({ recorded: 0 });
  });

  it('an API answering 403 still records the instance id and the tag, and logs the cause', async () => {
    sim.access = { list: new Set() };
    const { handle, keysRecorded, log, metrics } = await setup();
    expect(await handle(spotInterruptionWarning('2026-10-02T16:13:05Z', NODE_INSTANCE))).toEqual({ recorded: 2 });
    expect(await keysRecorded()).toEqual([NODE_INSTANCE, 'spot-runners'].sort());
    const [line] = log.named('cannot list the runner pods on the EKS cluster; recording the instance keys only');
    expect(line).toMatchObject({ level: 'warn', cluster: 'prod', status: 403 });
    expect(String(line?.error)).toMatch(/^403 nodes is forbidden: User ".*" cannot list resource "nodes"/);
    expect(metrics.get('EksPodListingFailed')).toBe(1);
  });

  it('an API timing out still records the instance id and the tag, and logs the cause', async () => {
    sim.access = { list: new Set(), hang: true };
    const { handle, keysRecorded, log } = await setup(400);
    expect(await handle(spotInterruptionWarning('2026-10-02T16:13:05Z', NODE_INSTANCE))).toEqual({ recorded: 2 });
    expect(await keysRecorded()).toEqual([NODE_INSTANCE, 'spot-runners'].sort());
    expect(
      log.named('cannot list the runner pods on the EKS cluster; recording the instance keys only')[0],
    ).toMatchObject({ cluster: 'prod', error: 'timed out after 400 ms' });
  });
});

describe('early recovery of the jobs on the runner pods (issue 43 with early recovery)', () => {
  it("the warning asks the worker to recover the job running on one of the node's runner pods, and only that one", async () => {
    const sent: { message: { jobId?: number; runnerName?: string }; groupId: string }[] = [];
    const jobsOn = [
      {
        jobId: 71,
        runId: 7,
        runnerName: 'gpu-9f3k1-runner-hh2wd',
        repository: 'acme/arc',
        repositoryId: 9,
        installationId: 42,
      },
    ];
    const asked: string[][] = [];
    const { handle } = await setup(5000, {
      jobs: {
        runningOn: async (keys) => {
          asked.push([...keys]);
          return jobsOn.filter((j) => keys.includes(j.runnerName));
        },
      },
      recovery: {
        queue: { send: async (message, groupId) => void sent.push({ message: message as never, groupId }) },
        log: new MemoryLog(),
        metrics: new MemoryMetrics(),
      },
    });
    await handle(spotInterruptionWarning('2026-10-02T16:13:05Z', NODE_INSTANCE));
    // The jobs were looked up under the pod names too, and the one on a pod of the node is asked for.
    expect(asked[0]).toEqual(expect.arrayContaining(RUNNERS_ON_NODE));
    expect(sent.map((s) => s.message)).toEqual([
      expect.objectContaining({ kind: 'recovery', jobId: 71, runnerName: 'gpu-9f3k1-runner-hh2wd' }),
    ]);
  });
});
