import { type EksClusterConfig, runnerSelectorOf } from '../config/eks-clusters.js';
import type { EksClusterTarget } from './eks-runner-pods.js';

/** What `eks:DescribeCluster` says of a cluster that its API's clients need. */
export interface ClusterFacts {
  readonly endpoint: string;
  /** The cluster CA, PEM. */
  readonly caPem: string;
}

/** The AWS calls an EKS cluster's access needs: DescribeCluster and the role's token, injected for tests. */
export interface EksAccessPorts {
  /** The cluster's endpoint and CA (DescribeCluster); absent in the local runtime. */
  readonly describeCluster?: (name: string) => Promise<ClusterFacts>;
  /** A token of the process's own IAM identity for the cluster; absent in the local runtime. */
  readonly roleToken?: (cluster: string) => Promise<string>;
  readonly readFile: (path: string) => Promise<string>;
}

/**
 * Each configured cluster as the pod lookup asks it: what the entry gives (locally: endpoint,
 * CA file, token) and the rest from AWS. DescribeCluster is asked once per process and again only
 * after a failure; a role token is made per request, as it holds for a minute.
 */
export function eksClusterTargets(clusters: readonly EksClusterConfig[], ports: EksAccessPorts): EksClusterTarget[] {
  return clusters.map((c) => {
    let facts: Promise<ClusterFacts> | undefined;
    const described = (): Promise<ClusterFacts> => {
      if (!ports.describeCluster)
        throw new Error(`cluster ${c.name}: no endpoint and CA given, and no DescribeCluster here`);
      facts ??= ports.describeCluster(c.name).catch((err: unknown) => {
        facts = undefined;
        throw err;
      });
      return facts;
    };
    const token = async (): Promise<string> => {
      if (c.token !== undefined) return c.token;
      if (!ports.roleToken) throw new Error(`cluster ${c.name}: no token given, and no IAM role here`);
      return ports.roleToken(c.name);
    };
    return {
      name: c.name,
      selector: runnerSelectorOf(c),
      ...(c.namespaces && { namespaces: c.namespaces }),
      api: async () => {
        const endpoint = c.endpoint ?? (await described()).endpoint;
        const caPem = c.caFile !== undefined ? await ports.readFile(c.caFile) : (await described()).caPem;
        return { endpoint, caPem, token };
      },
    };
  });
}
