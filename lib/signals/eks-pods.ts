/**
 * The join from an EC2 instance to the runner pods bound to it, on facts the Kubernetes API
 * returns: a node's `spec.providerID` is `aws:///<zone>/<instance-id>` on EKS, and each pod names
 * the node it is bound to. Pure: the requests are made by kube-client.ts.
 */

/** The parts of a Kubernetes node this join reads. */
export interface KubeNode {
  readonly metadata?: { readonly name?: string };
  readonly spec?: { readonly providerID?: string };
}

/** The parts of a Kubernetes pod this join reads. */
export interface KubePod {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly spec?: { readonly nodeName?: string };
}

/** A Kubernetes list answer: its items and the token of the next page. */
export interface KubeList<T> {
  readonly items?: readonly T[];
  readonly metadata?: { readonly continue?: string };
}

/** The instance id at the end of a node's provider id (`aws:///us-east-1a/i-0abc…`), if it has one. */
export function instanceIdOfProvider(providerId: string | undefined): string | undefined {
  return /^aws:\/\/\/[^/]*\/(i-[0-9a-f]{8,17})$/.exec(providerId ?? '')?.[1];
}

/** The name of the node running `instanceId`, found by its provider id; undefined when none is. */
export function nodeOfInstance(nodes: readonly KubeNode[], instanceId: string): string | undefined {
  return nodes.find((n) => instanceIdOfProvider(n.spec?.providerID) === instanceId)?.metadata?.name;
}

/**
 * The runner names among the pods the API listed for `node`: a pod's name is its runner's name
 * under ARC. Pods bound to another node are dropped even if the API returned them.
 */
export function runnerPodNames(pods: readonly KubePod[], node: string): string[] {
  const names = pods
    .filter((p) => p.spec?.nodeName === node)
    .map((p) => p.metadata?.name)
    .filter((n): n is string => typeof n === 'string' && n !== '');
  return [...new Set(names)];
}

/**
 * The request listing the pods bound to `node` that match `selector`: across the cluster, or in
 * one namespace when the access is scoped to namespaces.
 */
export function podsPath(node: string, selector: string, continueToken?: string, namespace?: string): string {
  const q = new URLSearchParams({ fieldSelector: `spec.nodeName=${node}`, labelSelector: selector, limit: '500' });
  if (continueToken) q.set('continue', continueToken);
  const where = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `/api/v1${where}/pods?${q.toString()}`;
}

/** The request listing the cluster's nodes, a page at a time. */
export function nodesPath(continueToken?: string): string {
  const q = new URLSearchParams({ limit: '500' });
  if (continueToken) q.set('continue', continueToken);
  return `/api/v1/nodes?${q.toString()}`;
}
