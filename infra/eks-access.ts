import { Stack } from 'aws-cdk-lib';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { RepriseEksCluster } from './props/nested-props.js';

/**
 * The narrowest access policy EKS offers that lists pods: read-only, no Secrets. EKS access
 * policies are managed by AWS (none can be written), and none grants `list pods` alone.
 */
export const EKS_VIEW_POLICY = 'AmazonEKSViewPolicy';

export interface EksRunnerAccessProps {
  /** The EC2 signal function's role. */
  readonly role: IRole;
  readonly clusters: readonly RepriseEksCluster[];
}

/**
 * Lets the EC2 signal function list the runner pods of the configured EKS clusters and nothing
 * more: one access entry per cluster mapping its role to `AmazonEKSViewPolicy` (scoped to the
 * runner namespaces when given), and `eks:DescribeCluster` on those clusters alone, for their
 * endpoint and CA. A cluster on the `aws-auth` ConfigMap instead needs the mapping by hand
 * (docs/signals.md).
 */
export class EksRunnerAccess extends Construct {
  public readonly entries: Record<string, CfnAccessEntry> = {};

  public constructor(scope: Construct, id: string, props: EksRunnerAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    for (const c of props.clusters) {
      if (c.accessEntry === false) continue;
      this.entries[c.name] = new CfnAccessEntry(this, c.name, {
        clusterName: c.name,
        principalArn: props.role.roleArn,
        type: 'STANDARD',
        accessPolicies: [
          {
            policyArn: `arn:${stack.partition}:eks::aws:cluster-access-policy/${EKS_VIEW_POLICY}`,
            accessScope: c.namespaces?.length
              ? { type: 'namespace', namespaces: [...c.namespaces] }
              : { type: 'cluster' },
          },
        ],
      });
    }
    props.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['eks:DescribeCluster'],
        resources: props.clusters.map((c) =>
          stack.formatArn({ service: 'eks', resource: 'cluster', resourceName: c.name }),
        ),
      }),
    );
  }
}
