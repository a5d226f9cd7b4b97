import type { Log, MetricSink } from '../obs/types.js';
import {
  type KubeList,
  type KubeNode,
  type KubePod,
  nodeOfInstance,
  nodesPath,
  podsPath,
  runnerPodNames,
} from './eks-pods.js';
import { KubeApiError, type KubeEndpoint, kubeGet } from './kube-client.js';

/** One cluster whose nodes may run runners: its name, its runner pods' selector, how to reach its API. */
export interface EksClusterTarget {
  readonly name: string;
  /** Label selector of its runner pods (ARC's by default). */
  readonly selector: string;
  /** The namespaces its runner pods run in, when the access is scoped to them; the whole cluster when absent. */
  readonly namespaces?: readonly string[];
  /** Its API: from DescribeCluster and the function's role when deployed, as given locally. */
  readonly api: () => Promise<KubeEndpoint>;
}

/** What the EC2 side already knows of the instance: its private DNS name, the node name on EKS. */
export interface InstanceHint {
  readonly privateDnsName?: string;
}

/** A cluster whose pods could not be listed, and why: what `reprise status` and the log name. */
export interface PodListingFailure {
  readonly cluster: string;
  readonly instanceId: string;
  readonly cause: string;
  /** The HTTP status, when the API answered. */
  readonly status?: number;
  readonly at: string;
}

/** What listing a node's runner pods needs: the clusters, their access, the cache, the log and metrics. */
export interface RunnerPodDeps {
  readonly clusters: readonly EksClusterTarget[];
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Each request's deadline, in ms. */
  readonly timeoutMs: number;
  /**
   * How long one cluster may take in all (DescribeCluster, the pages of nodes and pods), in ms: the
   * function must answer within its own timeout, or EventBridge retries the whole event.
   */
  readonly budgetMs?: number;
  /** Told of each cluster's outcome (a failure, or undefined once it answered): kept for `reprise status`. */
  readonly onOutcome?: (cluster: string, failure: PodListingFailure | undefined) => Promise<void>;
  readonly now?: () => number;
}

/** The runner pod names bound to an instance's node, over every configured cluster; never throws. */
export type RunnerPodLookup = (instanceId: string, hint: InstanceHint) => Promise<string[]>;

/** A cluster with thousands of nodes takes a few pages; past this many the listing is cut short. */
const MAX_PAGES = 20;

/** The metric counted when a cluster's pod listing fails (the signal is still recorded, without pod names). */
export const POD_LISTING_FAILED_METRIC = 'EksPodListingFailed';

/**
 * Asks each cluster which of its nodes is the instance (by `spec.providerID`) and which runner
 * pods are bound to it. A cluster that refuses the node listing (a read-only access policy
 * holds no `nodes`) is asked by the instance's private DNS name, the node's name on EKS. A
 * cluster that fails is logged with its cause and counted; the others still answer, and the
 * instance's own keys are recorded whatever happens here.
 */
export function eksRunnerPods(deps: RunnerPodDeps): RunnerPodLookup {
  const now = deps.now ?? Date.now;
  return async (instanceId, hint) => {
    const names = await Promise.all(
      deps.clusters.map(async (cluster) => {
        try {
          const found = await withinBudget(podsOn(cluster, instanceId, hint, deps), deps.budgetMs);
          await tell(deps, cluster.name, undefined);
          return found;
        } catch (err) {
          const failure: PodListingFailure = {
            cluster: cluster.name,
            instanceId,
            cause: (err as Error).message,
            ...(err instanceof KubeApiError && err.status !== undefined && { status: err.status }),
            at: new Date(now()).toISOString(),
          };
          deps.log.warn('cannot list the runner pods on the EKS cluster; recording the instance keys only', {
            cluster: cluster.name,
            instance_id: instanceId,
            error: failure.cause,
            error_name: (err as Error).name,
            ...(failure.status !== undefined && { status: failure.status }),
          });
          deps.metrics.count(POD_LISTING_FAILED_METRIC, 1);
          await tell(deps, cluster.name, failure);
          return [];
        }
      }),
    );
    return [...new Set(names.flat())];
  };
}

/** The lookup, or a KubeApiError once the cluster's budget is spent (the requests in flight are left to end). */
async function withinBudget<T>(work: Promise<T>, budgetMs: number | undefined): Promise<T> {
  if (budgetMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const spent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new KubeApiError(`gave up after ${budgetMs} ms`)), budgetMs);
  });
  try {
    return await Promise.race([work, spent]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}

async function podsOn(
  cluster: EksClusterTarget,
  instanceId: string,
  hint: InstanceHint,
  deps: RunnerPodDeps,
): Promise<string[]> {
  const api = await cluster.api();
  const node = await nodeFor(api, instanceId, hint, deps.timeoutMs);
  if (!node) {
    deps.log.debug('the instance is no node of the EKS cluster', { cluster: cluster.name, instance_id: instanceId });
    return [];
  }
  const scopes = cluster.namespaces?.length ? cluster.namespaces : [undefined];
  const pods: KubePod[] = [];
  for (const ns of scopes) {
    pods.push(...(await listAll<KubePod>(api, (c) => podsPath(node, cluster.selector, c, ns), deps.timeoutMs)));
  }
  const names = runnerPodNames(pods, node);
  deps.log.info('runner pods on the interrupted node', {
    cluster: cluster.name,
    instance_id: instanceId,
    node,
    pods: names,
  });
  return names;
}

async function nodeFor(
  api: KubeEndpoint,
  instanceId: string,
  hint: InstanceHint,
  timeoutMs: number,
): Promise<string | undefined> {
  try {
    return nodeOfInstance(await listAll<KubeNode>(api, nodesPath, timeoutMs), instanceId);
  } catch (err) {
    const dns = hint.privateDnsName?.trim();
    if (err instanceof KubeApiError && err.status === 403 && dns) return dns;
    throw err;
  }
}

async function listAll<T>(api: KubeEndpoint, path: (c?: string) => string, timeoutMs: number): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await kubeGet<KubeList<T>>(api, path(next), timeoutMs);
    items.push(...(list.items ?? []));
    next = list.metadata?.continue || undefined;
    if (!next) break;
  }
  return items;
}

async function tell(deps: RunnerPodDeps, cluster: string, failure: PodListingFailure | undefined): Promise<void> {
  if (!deps.onOutcome) return;
  try {
    await deps.onOutcome(cluster, failure);
  } catch (err) {
    deps.log.warn('could not keep the EKS cluster outcome for reprise status', {
      cluster,
      error: (err as Error).message,
    });
  }
}
