import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { createEc2SignalHandler } from '../../lib/intake/record-ec2-signal.js';
import type { DescribeInstance } from '../../lib/signals/runner-identities.js';
import { MemoryLog } from '../support/memory-log.js';
import { freshTable, INSTANCE_ID, spotInterruptionWarning } from './fixtures.js';

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: 'unused' });
});
afterAll(async () => {
  await dynamo?.close();
});

const DNS = 'ip-10-0-1-23.us-east-2.compute.internal';
const describeAs =
  (tags: Record<string, string>, privateDnsName?: string): DescribeInstance =>
  async (id) => {
    expect(id).toBe(INSTANCE_ID);
    return { tags, ...(privateDnsName && { privateDnsName }) };
  };

async function record(describeInstance: DescribeInstance, tagKeys: string[] = ['ghr:runner-name']) {
  const t = await freshTable(dynamo);
  const log = new MemoryLog();
  const handle = createEc2SignalHandler({
    store: t.store,
    describe: describeInstance,
    tagKeys,
    log,
    metrics: new MemoryMetrics(),
  });
  const outcome = await handle(spotInterruptionWarning());
  const items = await t.items();
  return { outcome, log, keys: items.map((i) => i.runnerKey).sort(), items };
}

describe('runner identities of an interrupted instance', () => {
  it('records the instance id itself', async () => {
    const { keys } = await record(describeAs({}));
    expect(keys).toEqual([INSTANCE_ID]);
  });

  it('records the value of a configured tag key, not of other tags', async () => {
    const { keys, outcome } = await record(
      describeAs({ 'ghr:runner-name': 'linux-x64-7f3a', Name: 'ci-runner', team: 'platform' }),
    );
    expect(keys).toEqual(['linux-x64-7f3a', INSTANCE_ID].sort());
    expect(outcome.recorded).toBe(2);
  });

  it('records the private DNS name (the Kubernetes node name)', async () => {
    const { keys, items } = await record(describeAs({}, DNS));
    expect(keys).toEqual([INSTANCE_ID, DNS].sort());
    expect(items.every((i) => i.instanceId === INSTANCE_ID && i.kind === 'spot-interruption')).toBe(true);
  });

  it('records every identity once, with the same event id', async () => {
    const { items } = await record(describeAs({ 'ghr:runner-name': DNS, other: 'r-2' }, DNS), [
      'ghr:runner-name',
      'other',
    ]);
    expect(items.map((i) => i.runnerKey).sort()).toEqual([INSTANCE_ID, DNS, 'r-2'].sort());
    expect(new Set(items.map((i) => i.eventId))).toEqual(new Set([spotInterruptionWarning().id]));
  });

  it('a DescribeInstances failure still writes the instance-id record and logs it', async () => {
    const failing: DescribeInstance = async () => {
      throw Object.assign(new Error('User is not authorized to perform: ec2:DescribeInstances'), {
        name: 'UnauthorizedOperation',
      });
    };
    const { keys, log, outcome } = await record(failing);
    expect(keys).toEqual([INSTANCE_ID]);
    expect(outcome).toEqual({ recorded: 1 });
    expect(log.named('DescribeInstances failed; recording the instance id only')).toEqual([
      expect.objectContaining({
        level: 'warn',
        instance_id: INSTANCE_ID,
        error_name: 'UnauthorizedOperation',
      }),
    ]);
  });

  it('an instance EC2 no longer knows still writes the instance-id record', async () => {
    const { keys, log } = await record(async () => undefined);
    expect(keys).toEqual([INSTANCE_ID]);
    expect(log.named('instance not found; recording the instance id only')).toHaveLength(1);
  });

  it('records the instance type and availability zone with every record of the signal', async () => {
    const placed: DescribeInstance = async () => ({
      tags: {},
      privateDnsName: DNS,
      instanceType: 'm7i.large',
      availabilityZone: 'us-east-2a',
    });
    const { items, log } = await record(placed);
    expect(items).toHaveLength(2);
    for (const i of items) expect(i).toMatchObject({ instanceType: 'm7i.large', availabilityZone: 'us-east-2a' });
    expect(log.named('EC2 signal recorded')[0]).toMatchObject({
      instance_type: 'm7i.large',
      availability_zone: 'us-east-2a',
    });
    // An instance EC2 no longer knows is recorded without them, not with blanks.
    const gone = await record(async () => undefined);
    expect(gone.items[0]).not.toHaveProperty('instanceType');
    expect(gone.items[0]).not.toHaveProperty('availabilityZone');
  });
});
