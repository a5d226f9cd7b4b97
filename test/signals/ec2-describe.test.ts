import { DescribeInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { ec2Describe } from '../../lib/signals/ec2-describe.js';
import { INSTANCE_ID } from './fixtures.js';

const DNS = 'ip-10-0-1-23.us-east-2.compute.internal';

describe('ec2Describe', () => {
  const clientAnswering = (answer: () => Promise<unknown>) => {
    const sent: unknown[] = [];
    const client = {
      send: async (cmd: unknown) => {
        sent.push(cmd);
        return answer();
      },
    } as unknown as EC2Client;
    return { client, sent };
  };

  it('reads tags and the private DNS name of the instance asked for', async () => {
    const { client, sent } = clientAnswering(async () => ({
      Reservations: [
        {
          Instances: [
            {
              InstanceId: INSTANCE_ID,
              PrivateDnsName: DNS,
              Tags: [
                { Key: 'ghr:runner-name', Value: 'linux-x64-7f3a' },
                { Key: 'empty', Value: '' },
              ],
            },
          ],
        },
      ],
    }));
    expect(await ec2Describe(client)(INSTANCE_ID)).toEqual({
      privateDnsName: DNS,
      tags: { 'ghr:runner-name': 'linux-x64-7f3a' },
    });
    expect(sent[0]).toBeInstanceOf(DescribeInstancesCommand);
    expect((sent[0] as DescribeInstancesCommand).input).toEqual({ InstanceIds: [INSTANCE_ID] });
  });

  it('reads the instance type and availability zone', async () => {
    const { client } = clientAnswering(async () => ({
      Reservations: [
        {
          Instances: [
            { InstanceId: INSTANCE_ID, InstanceType: 'c6a.xlarge', Placement: { AvailabilityZone: 'eu-west-1b' } },
          ],
        },
      ],
    }));
    expect(await ec2Describe(client)(INSTANCE_ID)).toEqual({
      tags: {},
      instanceType: 'c6a.xlarge',
      availabilityZone: 'eu-west-1b',
    });
  });

  it('answers undefined for an instance EC2 no longer knows, and throws other errors', async () => {
    const notFound = clientAnswering(async () => {
      throw Object.assign(new Error('does not exist'), { name: 'InvalidInstanceID.NotFound' });
    });
    expect(await ec2Describe(notFound.client)(INSTANCE_ID)).toBeUndefined();
    expect(await ec2Describe(clientAnswering(async () => ({ Reservations: [] })).client)(INSTANCE_ID)).toBeUndefined();
    const denied = clientAnswering(async () => {
      throw Object.assign(new Error('denied'), { name: 'UnauthorizedOperation' });
    });
    await expect(ec2Describe(denied.client)(INSTANCE_ID)).rejects.toThrow('denied');
  });
});
