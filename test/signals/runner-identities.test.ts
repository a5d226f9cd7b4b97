import { describe, expect, it } from 'vitest';
import { describeRunnerInstance, identitiesFrom, type InstanceFacts } from '../../lib/signals/runner-identities.js';
import { MemoryLog } from '../support/memory-log.js';

const ID = 'i-0123456789abcdef0';
const facts: InstanceFacts = {
  privateDnsName: 'ip-10-0-1-23.ec2.internal',
  tags: { Name: 'runner-7', 'ghr:runner': ' gpu-runner-7 ', Team: 'infra' },
  instanceType: 'c7i.large',
  availabilityZone: 'us-east-1a',
};

describe('identitiesFrom', () => {
  it('the instance id first, then the configured tag values (trimmed), then the private DNS name', () => {
    expect(identitiesFrom(ID, facts, ['Name', 'ghr:runner'])).toEqual([
      ID,
      'runner-7',
      'gpu-runner-7',
      'ip-10-0-1-23.ec2.internal',
    ]);
  });

  it('tags not configured, missing or blank add nothing; each key once', () => {
    expect(identitiesFrom(ID, { tags: { Name: '  ', Other: ID } }, ['Name', 'Missing', 'Other'])).toEqual([ID]);
  });

  it('ignores blank tag values and DNS names', () => {
    expect(identitiesFrom(ID, { tags: { k: '  ' }, privateDnsName: '' }, ['k', 'missing'])).toEqual([ID]);
  });

  it('no facts: the instance id alone', () => {
    expect(identitiesFrom(ID, undefined, ['Name'])).toEqual([ID]);
  });
});

describe('describeRunnerInstance', () => {
  it('keys and placement from one lookup', async () => {
    const asked: string[] = [];
    const log = new MemoryLog();
    const out = await describeRunnerInstance(ID, {
      describe: async (id) => (asked.push(id), facts),
      tagKeys: ['Name'],
      log,
    });
    expect(asked).toEqual([ID]);
    expect(out).toEqual({
      keys: [ID, 'runner-7', 'ip-10-0-1-23.ec2.internal'],
      placement: { instanceType: 'c7i.large', availabilityZone: 'us-east-1a' },
      // The node name on EKS, for the runner pods' lookup when the node listing is refused.
      privateDnsName: 'ip-10-0-1-23.ec2.internal',
    });
    expect(log.lines).toEqual([]);
  });

  it('an instance EC2 no longer knows: the instance id alone, and a warning', async () => {
    const log = new MemoryLog();
    const out = await describeRunnerInstance(ID, { describe: async () => undefined, tagKeys: ['Name'], log });
    expect(out).toEqual({ keys: [ID], placement: {} });
    expect(log.lines).toEqual([
      { level: 'warn', message: 'instance not found; recording the instance id only', instance_id: ID },
    ]);
  });

  it('a failed lookup still yields the instance id, and the warning names the error', async () => {
    const log = new MemoryLog();
    const denied = Object.assign(new Error('not authorized to perform ec2:DescribeInstances'), {
      name: 'UnauthorizedOperation',
    });
    const out = await describeRunnerInstance(ID, {
      describe: async () => {
        throw denied;
      },
      tagKeys: [],
      log,
    });
    expect(out).toEqual({ keys: [ID], placement: {} });
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: 'DescribeInstances failed; recording the instance id only',
        instance_id: ID,
        error: denied.message,
        error_name: 'UnauthorizedOperation',
      },
    ]);
  });
});
