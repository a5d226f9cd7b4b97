import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';
import type { ClusterFacts } from './eks-access.js';
import { eksToken } from './eks-token.js';

/** The cluster's endpoint and CA from `eks:DescribeCluster`; a cluster not yet active has neither. */
export function eksDescribeCluster(client: EKSClient): (name: string) => Promise<ClusterFacts> {
  return async (name) => {
    const { cluster } = await client.send(new DescribeClusterCommand({ name }));
    const endpoint = cluster?.endpoint;
    const ca = cluster?.certificateAuthority?.data;
    if (!endpoint || !ca) {
      throw new Error(`DescribeCluster ${name}: no endpoint or CA yet (status ${cluster?.status ?? 'unknown'})`);
    }
    return { endpoint, caPem: Buffer.from(ca, 'base64').toString('utf8') };
  };
}

/** A token of the client's own credentials (the function's role) for a cluster, as `aws eks get-token` makes it. */
export function eksRoleToken(client: EKSClient): (cluster: string) => Promise<string> {
  return async (cluster) =>
    eksToken({ cluster, region: await client.config.region(), credentials: await client.config.credentials() });
}
