import { describe, expect, it } from 'vitest';
import { parseEksClusters, requireLocalAccess, runnerSelectorOf } from '../../lib/config/eks-clusters.js';
import { eksClustersFrom } from '../../lib/config/signal-settings.js';

describe('EKS_CLUSTERS', () => {
  it('reads a deployed list (names, a selector, namespaces) and a local one (endpoint, CA file, token)', () => {
    expect(
      parseEksClusters(
        '[{"name":"runners"},{"name":"gpu","runnerSelector":"actions.github.com/scale-set-name=gpu","namespaces":["arc-gpu","arc-gpu"]}]',
        'EKS_CLUSTERS',
      ),
    ).toEqual([
      { name: 'runners' },
      { name: 'gpu', runnerSelector: 'actions.github.com/scale-set-name=gpu', namespaces: ['arc-gpu'] },
    ]);
    expect(
      eksClustersFrom({
        EKS_CLUSTERS: JSON.stringify([
          { name: 'kind', endpoint: 'https://127.0.0.1:6443/', caFile: '/tmp/ca.crt', token: 'tok' },
        ]),
      }),
    ).toEqual([{ name: 'kind', endpoint: 'https://127.0.0.1:6443', caFile: '/tmp/ca.crt', token: 'tok' }]);
    expect(eksClustersFrom({})).toEqual([]);
  });

  it("a cluster's selector is ARC's runner label unless it names one", () => {
    expect(runnerSelectorOf({ name: 'a' })).toBe('app.kubernetes.io/component=runner');
    expect(runnerSelectorOf({ name: 'a', runnerSelector: 'x=y' })).toBe('x=y');
  });

  it.each([
    ['not json', /not JSON/],
    ['{"name":"a"}', /expected a list of clusters/],
    ['["a"]', /\[0\]: expected an object with "name"/],
    ['[{"name":""}]', /\[0\]\.name: expected an EKS cluster name/],
    ['[{"name":"-a"}]', /\[0\]\.name/],
    ['[{"name":"a"},{"name":"a"}]', /\[1\]\.name: cluster a is listed twice/],
    ['[{"name":"a","selector":"x"}]', /unknown field\(s\) selector/],
    ['[{"name":"a","runnerSelector":"a=b,"}]', /runnerSelector: label selector/],
    ['[{"name":"a","endpoint":"http://10.0.0.1"}]', /endpoint: expected an https URL/],
    ['[{"name":"a","namespaces":[]}]', /namespaces: expected a non-empty list/],
    ['[{"name":"a","token":""}]', /token: expected a non-empty text/],
  ])('refuses %s, naming the entry at fault', (raw, error) => {
    expect(() => parseEksClusters(raw, 'EKS_CLUSTERS')).toThrow(error);
  });

  it('the local runtime needs the endpoint, the CA file and the token of each cluster', () => {
    expect(() => requireLocalAccess([{ name: 'runners', endpoint: 'https://x' }])).toThrow(
      'EKS_CLUSTERS: cluster runners needs caFile, token in the local runtime (no DescribeCluster here)',
    );
    expect(() => requireLocalAccess([{ name: 'k', endpoint: 'https://x', caFile: '/ca', token: 't' }])).not.toThrow();
  });
});
