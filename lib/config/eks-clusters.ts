import { ConfigError } from '../errors.js';
import { ARC_RUNNER_SELECTOR, parseLabelSelector } from './label-selector.js';

/**
 * `EKS_CLUSTERS` / the `eksClusters` prop: the EKS clusters whose nodes run runners, whose pods
 * the EC2 signal lists at an interruption. Deployed, a cluster is its name: its endpoint and CA
 * come from `eks:DescribeCluster` and its token from the function's role. Locally there is no
 * AWS, so each entry also gives `endpoint`, `caFile` and `token`.
 */
export interface EksClusterConfig {
  readonly name: string;
  /** Label selector of the runner pods. @default ARC's, `app.kubernetes.io/component=runner` */
  readonly runnerSelector?: string;
  /** The namespaces of its runner pods: the access entry is scoped to them, and pods are listed in each. */
  readonly namespaces?: readonly string[];
  /** `false`: the cluster maps the role itself (`aws-auth`); the construct creates no access entry. */
  readonly accessEntry?: boolean;
  /** The API server's URL (`https://…`); from DescribeCluster when absent. */
  readonly endpoint?: string;
  /** A file holding the cluster CA (PEM); from DescribeCluster when absent. */
  readonly caFile?: string;
  /** A bearer token; a presigned STS token of the function's role when absent. */
  readonly token?: string;
}

const FIELDS = new Set(['name', 'runnerSelector', 'namespaces', 'accessEntry', 'endpoint', 'caFile', 'token']);
/** Kubernetes namespace names (RFC 1123 labels). */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** EKS cluster names: 1–100 of letters, digits, `-` and `_`, starting with a letter or digit. */
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;

/** The selector a cluster's runner pods are listed with. */
export const runnerSelectorOf = (c: EksClusterConfig): string => c.runnerSelector ?? ARC_RUNNER_SELECTOR;

/** Reads the clusters from JSON text or a typed list; throws a ConfigError naming the entry at fault. */
export function parseEksClusters(raw: unknown, where: string): EksClusterConfig[] {
  const seen = new Set<string>();
  return clusterList(raw, where).map((entry: unknown, i) => parseCluster(entry, `${where}[${i}]`, seen));
}

/** The list itself: JSON text parsed, anything but a list refused. */
function clusterList(raw: unknown, where: string): unknown[] {
  let doc: unknown = raw;
  if (typeof raw === 'string') {
    try {
      doc = JSON.parse(raw);
    } catch {
      throw new ConfigError(`${where}: expected a JSON list of {"name", "runnerSelector"?}, got text that is not JSON`);
    }
  }
  if (!Array.isArray(doc)) throw new ConfigError(`${where}: expected a list of clusters, got ${typeof doc}`);
  return doc;
}

/** One entry, checked field by field in a fixed order, so the first fault is the one named. */
function parseCluster(entry: unknown, at: string, seen: Set<string>): EksClusterConfig {
  const e = clusterObject(entry, at);
  const name = clusterName(e, at, seen);
  const text = (k: string): string | undefined => optionalText(e, at, k);
  const runnerSelector = text('runnerSelector');
  if (runnerSelector !== undefined) checkRunnerSelector(runnerSelector, at);
  const endpoint = text('endpoint');
  if (endpoint !== undefined && !/^https:\/\/[^/\s]+/.test(endpoint)) {
    throw new ConfigError(`${at}.endpoint: expected an https URL, got ${JSON.stringify(endpoint)}`);
  }
  const ns = namespacesOf(e, at);
  if (e.accessEntry !== undefined && typeof e.accessEntry !== 'boolean') {
    throw new ConfigError(`${at}.accessEntry: expected true or false`);
  }
  const caFile = text('caFile');
  const token = text('token');
  return {
    name,
    ...(runnerSelector !== undefined && { runnerSelector }),
    ...(ns !== undefined && { namespaces: [...new Set(ns)] }),
    ...(e.accessEntry === false && { accessEntry: false }),
    ...(endpoint !== undefined && { endpoint: endpoint.replace(/\/+$/, '') }),
    ...(caFile !== undefined && { caFile }),
    ...(token !== undefined && { token }),
  };
}

/** An entry is an object of the known fields only. */
function clusterObject(entry: unknown, at: string): Record<string, unknown> {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new ConfigError(`${at}: expected an object with "name"`);
  }
  const e = entry as Record<string, unknown>;
  const unknown = Object.keys(e).filter((k) => !FIELDS.has(k));
  if (unknown.length > 0) throw new ConfigError(`${at}: unknown field(s) ${unknown.join(', ')}`);
  return e;
}

/** The entry's cluster name: a valid EKS name, listed once. */
function clusterName(e: Record<string, unknown>, at: string, seen: Set<string>): string {
  if (typeof e.name !== 'string' || !CLUSTER_NAME.test(e.name)) {
    throw new ConfigError(`${at}.name: expected an EKS cluster name, got ${JSON.stringify(e.name)}`);
  }
  if (seen.has(e.name)) throw new ConfigError(`${at}.name: cluster ${e.name} is listed twice`);
  seen.add(e.name);
  return e.name;
}

/** A text field, trimmed; absent is undefined, empty is refused. */
function optionalText(e: Record<string, unknown>, at: string, k: string): string | undefined {
  const value = e[k];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`${at}.${k}: expected a non-empty text`);
  return value.trim();
}

function checkRunnerSelector(selector: string, at: string): void {
  try {
    parseLabelSelector(selector);
  } catch (err) {
    throw new ConfigError(`${at}.runnerSelector: ${(err as Error).message}`);
  }
}

/** The namespaces, when given: a non-empty list of namespace names. */
function namespacesOf(e: Record<string, unknown>, at: string): string[] | undefined {
  const ns = e.namespaces;
  if (ns === undefined) return undefined;
  if (!Array.isArray(ns) || ns.length === 0 || ns.some((n) => typeof n !== 'string' || !NAMESPACE.test(n))) {
    throw new ConfigError(`${at}.namespaces: expected a non-empty list of namespace names, got ${JSON.stringify(ns)}`);
  }
  return ns as string[];
}

/** The local runtime has no AWS: each cluster must say where its API is, its CA and its token. */
export function requireLocalAccess(clusters: readonly EksClusterConfig[]): void {
  for (const c of clusters) {
    const missing = (['endpoint', 'caFile', 'token'] as const).filter((k) => c[k] === undefined);
    if (missing.length > 0) {
      throw new ConfigError(
        `EKS_CLUSTERS: cluster ${c.name} needs ${missing.join(', ')} in the local runtime (no DescribeCluster here)`,
      );
    }
  }
}
