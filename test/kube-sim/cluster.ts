import { arcRunnerLabels, type KubeSim } from './server.js';

/** The instance behind the node the runner pods are on, and one behind another node. */
export const NODE_INSTANCE = 'i-0aaaaaaaaaaaaaaaa';
export const OTHER_INSTANCE = 'i-0bbbbbbbbbbbbbbbb';

/** Two nodes, three runner pods on the first (more than a page), one on the second, and two pods that are no runners. */
export function seedCluster(sim: KubeSim): void {
  sim.nodes = [
    { name: 'ip-10-0-1-23.ec2.internal', providerID: `aws:///us-east-1a/${NODE_INSTANCE}` },
    { name: 'ip-10-0-2-40.ec2.internal', providerID: `aws:///us-east-1b/${OTHER_INSTANCE}` },
    { name: 'ip-10-0-3-50.ec2.internal', providerID: 'aws:///us-east-1c/i-0cccccccccccccccc' },
  ];
  const on = (nodeName: string) => ({ namespace: 'arc-runners', nodeName });
  sim.pods = [
    { name: 'linux-x64-7xk2p-runner-4qzmt', ...on('ip-10-0-1-23.ec2.internal'), labels: arcRunnerLabels('linux-x64') },
    { name: 'linux-x64-7xk2p-runner-b8d9v', ...on('ip-10-0-1-23.ec2.internal'), labels: arcRunnerLabels('linux-x64') },
    { name: 'gpu-9f3k1-runner-hh2wd', ...on('ip-10-0-1-23.ec2.internal'), labels: arcRunnerLabels('gpu') },
    { name: 'linux-x64-7xk2p-runner-zz9q1', ...on('ip-10-0-2-40.ec2.internal'), labels: arcRunnerLabels('linux-x64') },
    // The scale set's listener and a DaemonSet pod share the node; neither is a runner.
    {
      name: 'linux-x64-754b578d-listener',
      namespace: 'arc-systems',
      nodeName: 'ip-10-0-1-23.ec2.internal',
      labels: {
        'app.kubernetes.io/component': 'runner-scale-set-listener',
        'actions.github.com/scale-set-name': 'linux-x64',
      },
    },
    {
      name: 'aws-node-8kq2x',
      namespace: 'kube-system',
      nodeName: 'ip-10-0-1-23.ec2.internal',
      labels: { 'k8s-app': 'aws-node' },
    },
  ];
}

export const RUNNERS_ON_NODE = [
  'linux-x64-7xk2p-runner-4qzmt',
  'linux-x64-7xk2p-runner-b8d9v',
  'gpu-9f3k1-runner-hh2wd',
];
