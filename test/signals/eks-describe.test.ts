/**
 * The deployed side of a cluster's access on moto_server's EKS: DescribeCluster's endpoint and
 * CA, and a token of the client's own credentials.
 */
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eksDescribeCluster, eksRoleToken } from '../../lib/signals/eks-describe.js';
import { TOKEN_PREFIX } from '../../lib/signals/eks-token.js';
import { type MotoServer, motoServerPath, startMoto } from '../deployed/moto-server.js';

const MOTO = motoServerPath();

describe.skipIf(MOTO === undefined)('eksDescribeCluster and eksRoleToken on moto', () => {
  let moto: MotoServer;
  let eks: EKSClient;
  beforeAll(async () => {
    moto = await startMoto(MOTO!);
    eks = new EKSClient({
      endpoint: moto.url,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDTESTING', secretAccessKey: 'testing', sessionToken: 'role-session' },
    });
    await eks.send(
      new CreateClusterCommand({
        name: 'runners',
        roleArn: 'arn:aws:iam::123456789012:role/eks-cluster',
        resourcesVpcConfig: { subnetIds: ['subnet-0123456789abcdef0'] },
      }),
    );
  }, 120_000);
  afterAll(async () => {
    eks?.destroy();
    await moto?.close();
  });

  it("reads the cluster's https endpoint and its CA, decoded from base64", async () => {
    const facts = await eksDescribeCluster(eks)('runners');
    expect(facts.endpoint).toMatch(/^https:\/\//);
    expect(facts.caPem.length).toBeGreaterThan(0);
    expect(facts.caPem).not.toMatch(/^[A-Za-z0-9+/=]+$/);
  });

  it('a cluster that does not exist is the service error, named', async () => {
    await expect(eksDescribeCluster(eks)('absent')).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it("signs the token with the client's credentials, in its region", async () => {
    const token = await eksRoleToken(eks)('runners');
    const url = new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString());
    expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDTESTING\/\d{8}\/eu-west-1\/sts\/aws4_request$/);
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('role-session');
  });
});
