import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { ARC_RUNNER_SELECTOR } from '../../lib/config/label-selector.js';
import { eksRunnerPods, type PodListingFailure } from '../../lib/signals/eks-runner-pods.js';
import { MemoryLog } from '../support/memory-log.js';
import { KubeSim } from '../kube-sim/server.js';
import { NODE_INSTANCE, RUNNERS_ON_NODE, seedCluster } from '../kube-sim/cluster.js';

const CANNOT_LIST = 'cannot list the runner pods on the EKS cluster; recording the instance keys only';

let sim: KubeSim;
beforeAll(async () => {
  sim = await KubeSim.start('tok');
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => {
  seedCluster(sim);
  sim.access = { list: new Set(['nodes', 'pods']) };
  sim.requests.length = 0;
});

function lookup(opts: { selector?: string; timeoutMs?: number; budgetMs?: number; namespaces?: string[] } = {}) {
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  const outcomes: [string, PodListingFailure | undefined][] = [];
  const find = eksRunnerPods({
    clusters: [
      {
        name: 'prod',
        selector: opts.selector ?? ARC_RUNNER_SELECTOR,
        ...(opts.namespaces && { namespaces: opts.namespaces }),
        api: async () => ({ endpoint: sim.url, caPem: sim.certs.caPem, token: async () => 'tok' }),
      },
    ],
    log,
    metrics,
    timeoutMs: opts.timeoutMs ?? 5000,
    ...(opts.budgetMs !== undefined && { budgetMs: opts.budgetMs }),
    onOutcome: async (c, f) => void outcomes.push([c, f]),
  });
  return { find, log, metrics, outcomes };
}

describe('eksRunnerPods: the runner pods of an instance, from the Kubernetes API', () => {
  it("names each runner pod bound to the instance's node, across pages, and no pod of another node or no runner", async () => {
    const { find, outcomes } = lookup();
    expect((await find(NODE_INSTANCE, {})).sort()).toEqual([...RUNNERS_ON_NODE].sort());
    expect(outcomes).toEqual([['prod', undefined]]);
    // Paged: three nodes and three pods at two a page.
    expect(sim.requests.filter((r) => r.path === '/api/v1/nodes')).toHaveLength(2);
    expect(sim.requests.filter((r) => r.path === '/api/v1/pods')).toHaveLength(2);
  });

  it('a custom selector narrows to one scale set', async () => {
    const { find } = lookup({ selector: 'app.kubernetes.io/component=runner,actions.github.com/scale-set-name=gpu' });
    expect(await find(NODE_INSTANCE, {})).toEqual(['gpu-9f3k1-runner-hh2wd']);
  });

  it('an instance that is no node of the cluster names no pod and asks for none', async () => {
    const { find, metrics, outcomes } = lookup();
    expect(await find('i-0dddddddddddddddd', {})).toEqual([]);
    expect(sim.requests.some((r) => r.path === '/api/v1/pods')).toBe(false);
    expect(metrics.get('EksPodListingFailed')).toBe(0);
    expect(outcomes).toEqual([['prod', undefined]]);
  });

  it('a cluster that refuses the node listing is asked by the private DNS name, the node name on EKS', async () => {
    sim.access = { list: new Set(['pods']) };
    const { find, metrics } = lookup();
    expect((await find(NODE_INSTANCE, { privateDnsName: 'ip-10-0-1-23.ec2.internal' })).sort()).toEqual(
      [...RUNNERS_ON_NODE].sort(),
    );
    expect(metrics.get('EksPodListingFailed')).toBe(0);
  });

  it('with access scoped to the runner namespaces, the pods are listed in each of them', async () => {
    sim.access = { list: new Set(['pods']), namespaces: new Set(['arc-runners']) };
    const cluster = lookup();
    expect(await cluster.find(NODE_INSTANCE, { privateDnsName: 'ip-10-0-1-23.ec2.internal' })).toEqual([]);
    expect(cluster.metrics.get('EksPodListingFailed')).toBe(1);
    const scoped = lookup({ namespaces: ['arc-runners'] });
    expect((await scoped.find(NODE_INSTANCE, { privateDnsName: 'ip-10-0-1-23.ec2.internal' })).sort()).toEqual(
      [...RUNNERS_ON_NODE].sort(),
    );
    expect(sim.requests.at(-1)?.path).toBe('/api/v1/namespaces/arc-runners/pods');
  });

  it('a 403 on the pods is logged with its cause, counted, kept for status, and names no pod', async () => {
    sim.access = { list: new Set(['nodes']) };
    const { find, log, metrics, outcomes } = lookup();
    expect(await find(NODE_INSTANCE, {})).toEqual([]);
    expect(metrics.get('EksPodListingFailed')).toBe(1);
    const line = log.named(CANNOT_LIST)[0];
    expect(line).toMatchObject({ level: 'warn', cluster: 'prod', instance_id: NODE_INSTANCE, status: 403 });
    expect(String(line?.error)).toMatch(/^403 pods is forbidden/);
    expect(outcomes[0]?.[1]).toMatchObject({ cluster: 'prod', status: 403, instanceId: NODE_INSTANCE });
  });

  it('a timeout is logged with its cause and counted', async () => {
    sim.access = { list: new Set(), hang: true };
    const { find, log, metrics } = lookup({ timeoutMs: 300 });
    expect(await find(NODE_INSTANCE, {})).toEqual([]);
    expect(metrics.get('EksPodListingFailed')).toBe(1);
    expect(log.named(CANNOT_LIST)[0]?.error).toBe('timed out after 300 ms');
  });

  it("a cluster that would outlast the function's time is given up at its budget, and counted", async () => {
    sim.access = { list: new Set(), hang: true };
    const { find, log, metrics } = lookup({ timeoutMs: 60_000, budgetMs: 300 });
    expect(await find(NODE_INSTANCE, {})).toEqual([]);
    expect(metrics.get('EksPodListingFailed')).toBe(1);
    expect(log.named(CANNOT_LIST)[0]?.error).toBe('gave up after 300 ms');
  });

  it('a cluster whose API cannot even be resolved (DescribeCluster refused) fails alone', async () => {
    const log = new MemoryLog();
    const metrics = new MemoryMetrics();
    const find = eksRunnerPods({
      clusters: [
        {
          name: 'gone',
          selector: ARC_RUNNER_SELECTOR,
          api: async () => {
            throw Object.assign(new Error('No cluster found for name: gone.'), { name: 'ResourceNotFoundException' });
          },
        },
        {
          name: 'prod',
          selector: ARC_RUNNER_SELECTOR,
          api: async () => ({ endpoint: sim.url, caPem: sim.certs.caPem, token: async () => 'tok' }),
        },
      ],
      log,
      metrics,
      timeoutMs: 5000,
    });
    expect((await find(NODE_INSTANCE, {})).sort()).toEqual([...RUNNERS_ON_NODE].sort());
    expect(metrics.get('EksPodListingFailed')).toBe(1);
    expect(log.named(CANNOT_LIST)[0]).toMatchObject({
      cluster: 'gone',
      error_name: 'ResourceNotFoundException',
    });
  });
});
