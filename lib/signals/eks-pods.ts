/**
 * The join from an EC2 instance to the runner pods bound to it, on facts the Kubernetes API
 * returns: a node's `spec.providerID` is `aws:///<zone>/<instance-id>` on EKS, and each pod names
 * the node it is bound to. Pure: the requests are made by kube-client.ts.
 */

/**
 * The label selector of Actions Runner Controller's runner pods (gha-runner-scale-set): every
 * runner pod carries `app.kubernetes.io/component: runner`; the listener and the controller do not.
 */
export const ARC_RUNNER_SELECTOR = 'app.kubernetes.io/component=runner';

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

/** The request listing the pods bound to `node` that match `selector`. */
export function podsPath(node: string, selector: string, continueToken?: string): string {
  const q = new URLSearchParams({ fieldSelector: `spec.nodeName=${node}`, labelSelector: selector, limit: '500' });
  if (continueToken) q.set('continue', continueToken);
  return `/api/v1/pods?${q.toString()}`;
}

/** The request listing the cluster's nodes, a page at a time. */
export function nodesPath(continueToken?: string): string {
  const q = new URLSearchParams({ limit: '500' });
  if (continueToken) q.set('continue', continueToken);
  return `/api/v1/nodes?${q.toString()}`;
}

const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** One term of an equality-based label selector. */
export interface SelectorTerm {
  readonly key: string;
  readonly op: '=' | '!=' | 'exists' | '!exists';
  readonly value?: string;
}

/**
 * Reads an equality-based label selector (`k=v`, `k==v`, `k!=v`, `k`, `!k`, comma-separated), the
 * form `kubectl -l` takes; throws a message naming the bad term.
 */
export function parseLabelSelector(selector: string): SelectorTerm[] {
  const terms = selector.split(',').map((t) => t.trim());
  if (terms.length === 0 || terms.some((t) => t === ''))
    throw new Error(`label selector "${selector}" has an empty term`);
  return terms.map((t) => {
    const m = /^(!?)([^=!\s]+)\s*(?:(==|=|!=)\s*(\S*))?$/.exec(t);
    const key = m?.[2] ?? '';
    if (!m || !LABEL_KEY.test(key)) throw new Error(`label selector term "${t}" is not a label key or key=value`);
    if (m[1] && m[3]) throw new Error(`label selector term "${t}": "!" takes a key alone`);
    if (!m[3]) return { key, op: m[1] ? '!exists' : 'exists' };
    const value = m[4] ?? '';
    if (!LABEL_VALUE.test(value) || value.length > 63) throw new Error(`label selector term "${t}": bad value`);
    return { key, op: m[3] === '!=' ? '!=' : '=', value };
  });
}

/** Whether a pod's labels match a parsed selector, as the API server decides it. */
export function labelsMatch(labels: Readonly<Record<string, string>>, terms: readonly SelectorTerm[]): boolean {
  return terms.every((t) => {
    const has = Object.hasOwn(labels, t.key);
    if (t.op === 'exists') return has;
    if (t.op === '!exists') return !has;
    if (t.op === '=') return has && labels[t.key] === t.value;
    return !has || labels[t.key] !== t.value;
  });
}
