import type { EC2Client } from '@aws-sdk/client-ec2';
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import type { DescribeInstance } from './runner-identities.js';

/** The DescribeInstance port over the EC2 API (needs `ec2:DescribeInstances`). */
export function ec2Describe(client: EC2Client): DescribeInstance {
  return async (instanceId) => {
    let out;
    try {
      out = await client.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
    } catch (err) {
      // Terminated instances drop out of DescribeInstances after a while: not a fault.
      if ((err as Error).name === 'InvalidInstanceID.NotFound') return undefined;
      throw err;
    }
    const instance = (out.Reservations ?? [])
      .flatMap((r) => r.Instances ?? [])
      .find((i) => i.InstanceId === instanceId);
    if (!instance) return undefined;
    const tags: Record<string, string> = {};
    for (const t of instance.Tags ?? []) if (t.Key && t.Value) tags[t.Key] = t.Value;
    return {
      tags,
      ...(instance.PrivateDnsName && { privateDnsName: instance.PrivateDnsName }),
      ...(instance.InstanceType && { instanceType: instance.InstanceType }),
      ...(instance.Placement?.AvailabilityZone && { availabilityZone: instance.Placement.AvailabilityZone }),
    };
  };
}
