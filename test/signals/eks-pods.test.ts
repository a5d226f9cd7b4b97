import { describe, expect, it } from 'vitest';
import { ARC_RUNNER_SELECTOR } from '../../lib/config/label-selector.js';
import {
  instanceIdOfProvider,
  nodeOfInstance,
  nodesPath,
  podsPath,
  runnerPodNames,
} from '../../lib/signals/eks-pods.js';

describe('instanceIdOfProvider: a node of EKS names its instance in spec.providerID', () => {
  it.each([
    ['aws:///us-east-1a/i-0123456789abcdef0', 'i-0123456789abcdef0'],
    ['aws:///eu-west-1c/i-0abc1234', 'i-0abc1234'],
    // Fargate and other providers name no EC2 instance.
    ['aws:///us-east-1a/fargate-ip-10-0-1-23.ec2.internal', undefined],
    ['gce://project/zone/node', undefined],
    ['aws:///us-east-1a/i-0123456789abcdef0/extra', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s → %s', (provider, id) => {
    expect(instanceIdOfProvider(provider)).toBe(id);
  });
});

describe('nodeOfInstance', () => {
  const nodes = [
    { metadata: { name: 'ip-10-0-1-23.ec2.internal' }, spec: { providerID: 'aws:///us-east-1a/i-0aaaaaaaaaaaaaaaa' } },
    { metadata: { name: 'ip-10-0-1-24.ec2.internal' }, spec: { providerID: 'aws:///us-east-1b/i-0bbbbbbbbbbbbbbbb' } },
    { metadata: { name: 'no-provider' }, spec: {} },
  ];

  it('finds the node whose provider id ends with the instance id', () => {
    expect(nodeOfInstance(nodes, 'i-0bbbbbbbbbbbbbbbb')).toBe('ip-10-0-1-24.ec2.internal');
  });

  it('finds none for an instance that is no node of the cluster, nor for an id that is only a prefix', () => {
    expect(nodeOfInstance(nodes, 'i-0cccccccccccccccc')).toBeUndefined();
    expect(nodeOfInstance(nodes, 'i-0aaaaaaaa')).toBeUndefined();
  });
});

describe('runnerPodNames', () => {
  it('keeps the names of pods bound to the node, once each, and drops pods of other nodes', () => {
    const pods = [
      { metadata: { name: 'linux-x64-abcde-runner-1' }, spec: { nodeName: 'n1' } },
      { metadata: { name: 'linux-x64-abcde-runner-2' }, spec: { nodeName: 'n1' } },
      { metadata: { name: 'linux-x64-abcde-runner-2' }, spec: { nodeName: 'n1' } },
      { metadata: { name: 'elsewhere' }, spec: { nodeName: 'n2' } },
      { metadata: {}, spec: { nodeName: 'n1' } },
    ];
    expect(runnerPodNames(pods, 'n1')).toEqual(['linux-x64-abcde-runner-1', 'linux-x64-abcde-runner-2']);
  });
});

describe('the requests', () => {
  it("list the node's pods with ARC's runner label, a page at a time", () => {
    const url = new URL(podsPath('ip-10-0-1-23.ec2.internal', ARC_RUNNER_SELECTOR, 'abc'), 'https://x');
    expect(url.pathname).toBe('/api/v1/pods');
    expect(url.searchParams.get('fieldSelector')).toBe('spec.nodeName=ip-10-0-1-23.ec2.internal');
    expect(url.searchParams.get('labelSelector')).toBe('app.kubernetes.io/component=runner');
    expect(url.searchParams.get('continue')).toBe('abc');
    expect(new URL(nodesPath(), 'https://x').searchParams.get('continue')).toBeNull();
  });
});
