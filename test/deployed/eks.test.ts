/**
 * Issue 43 as deployed: the EC2 signal function's bundle, with the template environment of a
 * stack synthesized with `-c eksClusters=…`, in moto (EKS DescribeCluster, EC2, DynamoDB), and the
 * Kubernetes API from the simulator.
 */
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_PREFIX } from '../../lib/signals/eks-token.js';
import { RUNNERS_ON_NODE, seedCluster } from '../kube-sim/cluster.js';
import { KubeSim } from '../kube-sim/server.js';
import { spotInterruptionWarning } from '../signals/fixtures.js';
import { allows, roleOfFunction, statementsOfRole } from '../support/iam-policy.js';
import { type Deployment, deploy } from './setup.js';
import { motoServerPath } from './moto-server.js';
import { awsConfig } from './stack.js';

const MOTO = motoServerPath();
const CLUSTERS = [{ name: 'runners' }, { name: 'absent' }];
const CANNOT_LIST = 'cannot list the runner pods on the EKS cluster; recording the instance keys only';

/** A token as EKS takes it: `k8s-aws-v1.` and a presigned STS GetCallerIdentity URL bound to x-k8s-aws-id. */
function isRoleToken(token: string): boolean {
  if (!token.startsWith(TOKEN_PREFIX)) return false;
  const url = new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString());
  const q = url.searchParams;
  return (
    url.host === 'sts.eu-west-1.amazonaws.com' &&
    q.get('Action') === 'GetCallerIdentity' &&
    q.get('X-Amz-Expires') === '60' &&
    q.get('X-Amz-SignedHeaders') === 'host;x-k8s-aws-id' &&
    /^testing\/\d{8}\/eu-west-1\/sts\/aws4_request$/.test(q.get('X-Amz-Credential') ?? '') &&
    /^[0-9a-f]{64}$/.test(q.get('X-Amz-Signature') ?? '')
  );
}

describe.skipIf(!MOTO)('deployed: the EC2 signal with eksClusters, in moto', () => {
  let d: Deployment;
  let kube: KubeSim;
  let instanceId: string;

  beforeAll(async () => {
    d = await deploy(MOTO!, { runnerPreset: 'actions-runner-controller', eksClusters: JSON.stringify(CLUSTERS) });
    // The cluster the operator runs; `absent` is a name no cluster has.
    const eks = new EKSClient(awsConfig(d.moto.url));
    await eks.send(
      new CreateClusterCommand({
        name: 'runners',
        roleArn: 'arn:aws:iam::123456789012:role/eks-cluster',
        resourcesVpcConfig: { subnetIds: ['subnet-0123456789abcdef0'] },
      }),
    );
    eks.destroy();
    const ec2 = new EC2Client(awsConfig(d.moto.url));
    instanceId = (await ec2.send(new RunInstancesCommand({ ImageId: 'ami-12c6146b', MinCount: 1, MaxCount: 1 })))
      .Instances![0]!.InstanceId!;
    ec2.destroy();
    kube = await KubeSim.start('unused');
    kube.acceptToken = isRoleToken;
  }, 180_000);
  afterAll(async () => {
    await kube?.close();
    await d?.close();
  });

  const runnerKeys = async () =>
    ((await d.dynamo.send(new ScanCommand({ TableName: d.tableName }))).Items ?? [])
      .filter((i) => i.pk?.S?.startsWith('RUNNER#'))
      .map((i) => i.runnerKey!.S!);

  it('the template hands the function the clusters by name, and its role may DescribeCluster them', () => {
    expect(JSON.parse(d.environments.ec2Signal.EKS_CLUSTERS!)).toEqual(CLUSTERS);
    const statements = statementsOfRole(d.stack.resources, roleOfFunction(d.stack.resources, d.ids.ec2Signal));
    const arn = (name: string) => `arn:aws:eks:eu-west-1:123456789012:cluster/${name}`;
    const may = (action: string, resource: string) => allows(statements, { action, resource }, d.stack.resolve);
    expect(may('eks:DescribeCluster', arn('runners'))).toBe(true);
    expect(may('eks:DescribeCluster', arn('other'))).toBe(false);
    expect(may('eks:ListClusters', '*')).toBe(false);
  });

  it("moto's clusters are not reachable: the instance's record is still written, each cluster's cause logged and counted", async () => {
    const warning = { ...spotInterruptionWarning(new Date().toISOString(), instanceId), id: 'deployed-eks-1' };
    // The instance id and its private DNS name (moto's instance has one): the keys of every EC2 event.
    expect(await d.fn.ec2Signal.invoke(warning)).toEqual({ recorded: 2 });
    expect(await runnerKeys()).toContain(instanceId);
    const causes = Object.fromEntries(
      d.fn.ec2Signal
        .named(CANNOT_LIST)
        .map((l) => [l.cluster as string, `${String(l.error_name)}: ${String(l.error)}`]),
    );
    // DescribeCluster answered for `runners` (its endpoint is moto's made-up host); `absent` is not found.
    expect(Object.keys(causes).sort()).toEqual(['absent', 'runners']);
    expect(causes.absent).toMatch(/^ResourceNotFoundException/);
    expect(causes.runners).toMatch(/KubeApiError/);
    expect(d.fn.ec2Signal.metric('EksPodListingFailed')).toBe(2);
    // Kept for reprise status, within the function's own table grant.
    const listings = ((await d.dynamo.send(new ScanCommand({ TableName: d.tableName }))).Items ?? []).filter(
      (i) => i.pk?.S === 'EKSLISTING',
    );
    expect(listings.map((i) => i.cluster!.S).sort()).toEqual(['absent', 'runners']);
    expect(listings.every((i) => i.ok!.BOOL === false)).toBe(true);
  });

  it("with the cluster's API at hand, the bundle's role token is taken and each runner pod of the node is recorded", async () => {
    seedCluster(kube);
    // The node of the moto instance, in the simulated cluster; its API and CA as DescribeCluster would give them.
    kube.nodes = kube.nodes.map((n, i) => (i === 0 ? { ...n, providerID: `aws:///eu-west-1a/${instanceId}` } : n));
    const fn = await d.coldStart('ec2Signal', {
      EKS_CLUSTERS: JSON.stringify([{ name: 'runners', endpoint: kube.url, caFile: kube.certs.caFile }]),
    });
    const warning = { ...spotInterruptionWarning(new Date().toISOString(), instanceId), id: 'deployed-eks-2' };
    expect(await fn.invoke(warning)).toEqual({ recorded: 2 + RUNNERS_ON_NODE.length });
    expect(kube.requests.map((r) => r.status).every((s) => s === 200)).toBe(true);
    expect(await runnerKeys()).toEqual(expect.arrayContaining([instanceId, ...RUNNERS_ON_NODE]));
    expect(fn.named(CANNOT_LIST)).toEqual([]);
  });
});
