import { describe, expect, it } from 'vitest';
import { eksClusterTargets } from '../../lib/signals/eks-access.js';

const facts = { endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', caPem: 'PEM OF THE CLUSTER' };

describe('eksClusterTargets: how each configured cluster is reached', () => {
  it('deployed: a name alone takes its endpoint and CA from DescribeCluster and the token of the role', async () => {
    const described: string[] = [];
    const [target] = eksClusterTargets([{ name: 'runners' }], {
      describeCluster: async (name) => (described.push(name), facts),
      roleToken: async (cluster) => `k8s-aws-v1.token-for-${cluster}`,
      readFile: async () => {
        throw new Error('no file is read');
      },
    });
    expect(target).toMatchObject({ name: 'runners', selector: 'app.kubernetes.io/component=runner' });
    const api = await target!.api();
    expect(api).toMatchObject(facts);
    expect(await api.token()).toBe('k8s-aws-v1.token-for-runners');
    // Asked once per process.
    await target!.api();
    expect(described).toEqual(['runners']);
  });

  it('a failed DescribeCluster is asked again next time', async () => {
    let calls = 0;
    const [target] = eksClusterTargets([{ name: 'runners' }], {
      describeCluster: async () => {
        if (++calls === 1) throw new Error('AccessDeniedException');
        return facts;
      },
      roleToken: async () => 't',
      readFile: async () => '',
    });
    await expect(target!.api()).rejects.toThrow('AccessDeniedException');
    await expect(target!.api()).resolves.toMatchObject(facts);
    expect(calls).toBe(2);
  });

  it('locally: the endpoint, the CA file and the token as given, with the selector and namespaces', async () => {
    const [target] = eksClusterTargets(
      [
        {
          name: 'kind',
          endpoint: 'https://127.0.0.1:6443',
          caFile: '/tmp/ca.crt',
          token: 'static-token',
          runnerSelector: 'actions.github.com/scale-set-name=gpu',
          namespaces: ['arc-gpu'],
        },
      ],
      { readFile: async (path) => `PEM FROM ${path}` },
    );
    expect(target).toMatchObject({ selector: 'actions.github.com/scale-set-name=gpu', namespaces: ['arc-gpu'] });
    const api = await target!.api();
    expect(api).toMatchObject({ endpoint: 'https://127.0.0.1:6443', caPem: 'PEM FROM /tmp/ca.crt' });
    expect(await api.token()).toBe('static-token');
  });

  it('without AWS and without an endpoint, the cluster fails with what is missing', async () => {
    const [target] = eksClusterTargets([{ name: 'runners' }], { readFile: async () => '' });
    await expect(target!.api()).rejects.toThrow(/cluster runners: no endpoint and CA given/);
  });
});
