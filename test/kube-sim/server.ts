import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ClusterCerts, makeClusterCerts } from './certs.js';

/**
 * A Kubernetes API server as small as the EC2 signal needs and as strict as the real one where
 * it matters: TLS under the cluster's own CA, a bearer token or 401, RBAC as 403 per resource,
 * `fieldSelector` on the fields pods support (others are a 400), equality-based `labelSelector`,
 * `limit`/`continue` paging. Bodies are the API's: `NodeList`, `PodList`, `Status`.
 * Written apart from lib/signals/eks-pods.ts on purpose: a shared parser would hide its bugs.
 */

export interface SimNode {
  readonly name: string;
  /** `aws:///<zone>/<instance-id>` on EKS. */
  readonly providerID: string;
}

export interface SimPod {
  readonly name: string;
  readonly namespace: string;
  readonly nodeName: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** How the cluster answers the signal function's identity. */
export interface SimAccess {
  /** Resources the identity may list; the rest answer 403 as RBAC does. */
  readonly list: ReadonlySet<'nodes' | 'pods'>;
  /** Pods listable only in these namespaces (an access policy scoped to namespaces); cluster-wide when absent. */
  readonly namespaces?: ReadonlySet<string>;
  /** Accept connections and never answer (an unreachable private endpoint, a hung API server). */
  readonly hang?: boolean;
}

export interface KubeRequest {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly status: number;
}

/** The identity an EKS access entry maps the signal function's role to, as EKS names it. */
export const SIM_USER = 'arn:aws:sts::123456789012:assumed-role/reprise-ec2-signal/reprise-ec2-signal';

/**
 * ARC's labels on a runner pod of scale set `set`, as gha-runner-scale-set's resourcebuilder.go
 * sets them (actions/actions-runner-controller, commit 0140c666: `newEphemeralRunner` turns the
 * set's `app.kubernetes.io/component: runner-set` into `runner`, `newEphemeralRunnerPod` copies the
 * labels onto the pod and adds `actions-ephemeral-runner`).
 */
export const arcRunnerLabels = (set: string): Record<string, string> => ({
  'app.kubernetes.io/component': 'runner',
  'app.kubernetes.io/part-of': 'gha-runner-scale-set',
  'actions.github.com/scale-set-name': set,
  'actions.github.com/scale-set-namespace': 'arc-runners',
  'actions-ephemeral-runner': 'True',
});

export class KubeSim {
  readonly requests: KubeRequest[] = [];
  nodes: SimNode[] = [];
  pods: SimPod[] = [];
  access: SimAccess = { list: new Set(['nodes', 'pods']) };
  /** Which bearer tokens the cluster takes; the one `start` was given when absent. */
  acceptToken?: (token: string) => boolean;
  /** Items per page when the client gives no smaller `limit`: small, so paging is exercised. */
  pageSize = 2;
  private hung: ServerResponse[] = [];

  private constructor(
    readonly certs: ClusterCerts,
    readonly token: string,
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(token = 'k8s-sim-token'): Promise<KubeSim> {
    const certs = makeClusterCerts();
    const server = createServer({ cert: certs.certPem, key: certs.keyPem });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const sim = new KubeSim(certs, token, server, `https://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => sim.handle(req, res));
    return sim;
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    this.certs.dispose();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://sim');
    const query = Object.fromEntries(url.searchParams);
    const answer = (status: number, body: unknown) => {
      this.requests.push({ path: url.pathname, query, status });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (this.access.hang) {
      this.requests.push({ path: url.pathname, query, status: 0 });
      this.hung.push(res);
      return;
    }
    if (req.method !== 'GET')
      return answer(405, status(405, 'MethodNotAllowed', 'the server does not allow this method'));
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const accepted = bearer !== undefined && (this.acceptToken ? this.acceptToken(bearer) : bearer === this.token);
    if (!accepted) return answer(401, status(401, 'Unauthorized', 'Unauthorized'));
    const nsPods = /^\/api\/v1\/namespaces\/([a-z0-9-]+)\/pods$/.exec(url.pathname);
    const namespace = nsPods?.[1];
    const resource =
      url.pathname === '/api/v1/nodes' ? 'nodes' : url.pathname === '/api/v1/pods' || nsPods ? 'pods' : undefined;
    if (!resource) return answer(404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const scoped = this.access.namespaces;
    const allowed =
      this.access.list.has(resource) &&
      (resource === 'nodes' || !scoped || (namespace !== undefined && scoped.has(namespace)));
    if (!allowed) {
      const where = namespace === undefined ? 'at the cluster scope' : `in the namespace "${namespace}"`;
      return answer(
        403,
        status(
          403,
          'Forbidden',
          `${resource} is forbidden: User "${SIM_USER}" cannot list resource "${resource}" in API group "" ${where}`,
        ),
      );
    }
    try {
      const all = resource === 'nodes' ? this.nodes.map(nodeBody) : this.selectPods(query, namespace).map(podBody);
      const limit = Math.min(Number(query.limit ?? this.pageSize) || this.pageSize, this.pageSize);
      const from = query.continue ? Number(Buffer.from(query.continue, 'base64').toString('utf8')) : 0;
      const page = all.slice(from, from + limit);
      const more = from + limit < all.length;
      return answer(200, {
        kind: resource === 'nodes' ? 'NodeList' : 'PodList',
        apiVersion: 'v1',
        metadata: {
          resourceVersion: '4242',
          ...(more && { continue: Buffer.from(String(from + limit)).toString('base64') }),
        },
        items: page,
      });
    } catch (err) {
      return answer(400, status(400, 'BadRequest', (err as Error).message));
    }
  }

  private selectPods(query: Record<string, string>, namespace: string | undefined): SimPod[] {
    let pods = namespace === undefined ? this.pods : this.pods.filter((p) => p.namespace === namespace);
    for (const term of splitTerms(query.fieldSelector)) {
      const m = /^(spec\.nodeName|metadata\.name|metadata\.namespace)(==|=|!=)(.*)$/.exec(term);
      if (!m) throw new Error(`field label not supported: ${term.split(/[=!]/)[0]}`);
      const get = (p: SimPod) =>
        m[1] === 'spec.nodeName' ? p.nodeName : m[1] === 'metadata.name' ? p.name : p.namespace;
      pods = pods.filter((p) => (m[2] === '!=' ? get(p) !== m[3] : get(p) === m[3]));
    }
    for (const term of splitTerms(query.labelSelector)) {
      const m = /^(!?)([A-Za-z0-9./_-]+)(?:(==|=|!=)([A-Za-z0-9._-]*))?$/.exec(term);
      if (!m || (m[1] && m[3])) throw new Error(`unable to parse requirement: ${term}`);
      const [, not, key = '', op, value] = m;
      pods = pods.filter((p) => {
        const has = key in p.labels;
        if (!op) return not ? !has : has;
        return op === '!=' ? p.labels[key] !== value : p.labels[key] === value;
      });
    }
    return pods;
  }
}

const splitTerms = (s: string | undefined): string[] =>
  s === undefined || s === '' ? [] : s.split(',').map((t) => t.trim());

const status = (code: number, reason: string, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  code,
});

const nodeBody = (n: SimNode) => ({
  metadata: { name: n.name, labels: { 'kubernetes.io/hostname': n.name } },
  spec: { providerID: n.providerID },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});

const podBody = (p: SimPod) => ({
  metadata: { name: p.name, namespace: p.namespace, labels: p.labels },
  spec: { nodeName: p.nodeName, containers: [{ name: 'runner', image: 'ghcr.io/actions/actions-runner:latest' }] },
  status: { phase: 'Running' },
});
