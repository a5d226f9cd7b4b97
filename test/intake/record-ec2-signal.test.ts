import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { createEc2SignalHandler } from '../../lib/intake/record-ec2-signal.js';
import type { DescribeInstance } from '../../lib/signals/runner-identities.js';
import { MemoryLog } from '../support/memory-log.js';
import {
  ACCOUNT,
  amiStateChange,
  freshTable,
  INSTANCE_ID,
  rebalanceRecommendation,
  spotInterruptionWarning,
  stateChange,
} from '../signals/fixtures.js';

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: 'unused' });
});
afterAll(async () => {
  await dynamo?.close();
});

const unknownInstance: DescribeInstance = async () => undefined;

async function setup(describeInstance: DescribeInstance = unknownInstance) {
  const t = await freshTable(dynamo);
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  const handle = createEc2SignalHandler({ store: t.store, describe: describeInstance, tagKeys: [], log, metrics });
  return { ...t, log, metrics, handle };
}

describe('EC2 events from EventBridge', () => {
  it.each([
    [
      'EC2 Spot Instance Interruption Warning',
      spotInterruptionWarning(),
      'spot-interruption',
      'instance-action terminate',
    ],
    ['EC2 Instance Rebalance Recommendation', rebalanceRecommendation(), 'rebalance', 'rebalance recommendation'],
    [
      'EC2 Instance State-change Notification (shutting-down)',
      stateChange('shutting-down'),
      'terminated',
      'state shutting-down',
    ],
    [
      'EC2 Instance State-change Notification (terminated)',
      stateChange('terminated'),
      'terminated',
      'state terminated',
    ],
  ])('%s writes the instance-id record', async (_name, event, kind, reason) => {
    const { handle, items, metrics } = await setup();
    expect(await handle(event)).toEqual({ recorded: 1 });
    const [item, ...rest] = await items();
    expect(rest).toEqual([]);
    expect(item).toMatchObject({
      pk: `RUNNER#${INSTANCE_ID}`,
      sk: `SIGNAL#${new Date(event.time).toISOString()}#${event.id}`,
      runnerKey: INSTANCE_ID,
      instanceId: INSTANCE_ID,
      kind,
      eventTime: new Date(event.time).toISOString(),
      eventId: event.id,
      region: event.region,
      account: ACCOUNT,
      source: 'aws.ec2',
      reason,
    });
    // TTL 24 h from now by default.
    expect(item?.ttl).toBeGreaterThan(Date.now() / 1000 + 24 * 3600 - 60);
    expect(item?.ttl).toBeLessThanOrEqual(Date.now() / 1000 + 24 * 3600 + 1);
    expect(metrics.get(`SignalRecorded{kind=${kind}}`)).toBe(1);
  });

  it('keeps the configured TTL', async () => {
    const t = await freshTable(dynamo, 3 * 3600, () => 1_800_000_000_000);
    const handle = createEc2SignalHandler({
      store: t.store,
      describe: unknownInstance,
      tagKeys: [],
      log: new MemoryLog(),
      metrics: new MemoryMetrics(),
    });
    await handle(spotInterruptionWarning());
    expect((await t.items())[0]?.ttl).toBe(1_800_000_000 + 3 * 3600);
  });

  it('an unknown detail-type writes nothing and resolves with the reason', async () => {
    const { handle, items, log } = await setup();
    expect(await handle(amiStateChange())).toEqual({ recorded: 0, ignored: 'detail-type EC2 AMI State Change' });
    expect(await items()).toEqual([]);
    expect(log.named('EC2 event ignored')[0]).toMatchObject({ reason: 'detail-type EC2 AMI State Change' });
  });

  it.each(['pending', 'running', 'stopping', 'stopped'])('a state-change to %s writes nothing', async (state) => {
    const { handle, items } = await setup();
    expect(await handle(stateChange(state))).toEqual({ recorded: 0, ignored: `state ${state}` });
    expect(await items()).toEqual([]);
  });

  it('the same event delivered twice writes once', async () => {
    const { handle, items, metrics } = await setup();
    expect(await handle(spotInterruptionWarning())).toEqual({ recorded: 1 });
    expect(await handle(spotInterruptionWarning())).toEqual({ recorded: 0 });
    expect(await items()).toHaveLength(1);
    expect(metrics.get('SignalRecorded{kind=spot-interruption}')).toBe(1);
  });

  it('shutting-down then terminated are two events, two records', async () => {
    const { handle, items } = await setup();
    await handle(stateChange('shutting-down', '2026-10-02T16:15:07Z', 'a'));
    await handle(stateChange('terminated', '2026-10-02T16:16:01Z', 'b'));
    expect((await items()).map((i) => i.reason)).toEqual(['state shutting-down', 'state terminated']);
  });

  it('a DynamoDB failure throws so EventBridge retries', async () => {
    const log = new MemoryLog();
    const handle = createEc2SignalHandler({
      store: { record: async () => Promise.reject(new Error('ProvisionedThroughputExceededException')) },
      describe: unknownInstance,
      tagKeys: [],
      log,
      metrics: new MemoryMetrics(),
    });
    await expect(handle(spotInterruptionWarning())).rejects.toThrow('ProvisionedThroughputExceededException');
  });
});
