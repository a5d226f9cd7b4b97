import type { Log } from '../obs/types.js';

/** What DescribeInstances says about an instance that can name its runners. */
export interface InstanceFacts {
  /** The Kubernetes node name on EKS (e.g. `ip-10-0-1-23.ec2.internal`). */
  readonly privateDnsName?: string;
  readonly tags: Readonly<Record<string, string>>;
  /** Recorded with each signal, so losses can be counted by instance type and zone. */
  readonly instanceType?: string;
  readonly availabilityZone?: string;
}

/** Where an interrupted instance ran: what the EC2 event itself does not say. */
export interface InstancePlacement {
  readonly instanceType?: string;
  readonly availabilityZone?: string;
}

/** Looks an instance up; undefined when EC2 no longer knows it. */
export type DescribeInstance = (instanceId: string) => Promise<InstanceFacts | undefined>;

/** How an instance's tags and name are looked up (EC2 DescribeInstances), injected for tests. */
export interface IdentityLookup {
  readonly describe: DescribeInstance;
  /** EC2 tag keys whose values are runner names (e.g. a tag the fleet sets to the runner name). */
  readonly tagKeys: readonly string[];
  readonly log: Log;
}

/** Runner keys from what EC2 said: the instance id first, then tag values, then the private DNS name. */
export function identitiesFrom(
  instanceId: string,
  facts: InstanceFacts | undefined,
  tagKeys: readonly string[],
): string[] {
  const keys = new Set<string>([instanceId]);
  for (const key of tagKeys) {
    const value = facts?.tags[key]?.trim();
    if (value) keys.add(value);
  }
  const dns = facts?.privateDnsName?.trim();
  if (dns) keys.add(dns);
  return [...keys];
}

/**
 * The instance's runner keys and its placement, from one DescribeInstances call. A failed lookup
 * still yields the instance id: that key alone covers fleets that name runners `<prefix><instance-id>`.
 */
export async function describeRunnerInstance(
  instanceId: string,
  lookup: IdentityLookup,
): Promise<{ keys: string[]; placement: InstancePlacement; privateDnsName?: string }> {
  let facts: InstanceFacts | undefined;
  try {
    facts = await lookup.describe(instanceId);
    if (!facts) lookup.log.warn('instance not found; recording the instance id only', { instance_id: instanceId });
  } catch (err) {
    lookup.log.warn('DescribeInstances failed; recording the instance id only', {
      instance_id: instanceId,
      error: (err as Error).message,
      error_name: (err as Error).name,
    });
  }
  return {
    keys: identitiesFrom(instanceId, facts, lookup.tagKeys),
    placement: {
      ...(facts?.instanceType && { instanceType: facts.instanceType }),
      ...(facts?.availabilityZone && { availabilityZone: facts.availabilityZone }),
    },
    ...(facts?.privateDnsName && { privateDnsName: facts.privateDnsName }),
  };
}
