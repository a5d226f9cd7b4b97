import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubeApiError, kubeGet } from '../../lib/signals/kube-client.js';
import { makeClusterCerts } from '../kube-sim/certs.js';
import { KubeSim } from '../kube-sim/server.js';

let sim: KubeSim;
beforeAll(async () => {
  sim = await KubeSim.start('the-token');
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => {
  sim.access = { list: new Set(['nodes', 'pods']) };
  sim.nodes = [{ name: 'n1', providerID: 'aws:///us-east-1a/i-0aaaaaaaaaaaaaaaa' }];
});

const api = (over: { caPem?: string; token?: string; endpoint?: string } = {}) => ({
  endpoint: over.endpoint ?? sim.url,
  caPem: over.caPem ?? sim.certs.caPem,
  token: async () => over.token ?? 'the-token',
});

describe('kubeGet: HTTPS to a cluster under its own CA, with a bearer token', () => {
  it('reads a list with the cluster CA and the token', async () => {
    const list = await kubeGet<{ kind: string; items: unknown[] }>(api(), '/api/v1/nodes', 5000);
    expect(list.kind).toBe('NodeList');
    expect(list.items).toHaveLength(1);
  });

  it('refuses a server its CA did not sign (never the system roots, never unverified)', async () => {
    const other = makeClusterCerts();
    try {
      await expect(kubeGet(api({ caPem: other.caPem }), '/api/v1/nodes', 5000)).rejects.toThrow(KubeApiError);
      expect(sim.requests.at(-1)?.path).not.toBe('/unreached');
    } finally {
      other.dispose();
    }
  });

  it('names a 401 with the status', async () => {
    const err = await kubeGet(api({ token: 'wrong' }), '/api/v1/nodes', 5000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ status: 401, message: '401 Unauthorized' });
  });

  it("names a 403 with the API's own reason", async () => {
    sim.access = { list: new Set(['pods']) };
    const err = await kubeGet(api(), '/api/v1/nodes', 5000).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 403 });
    expect((err as Error).message).toMatch(/^403 nodes is forbidden: User ".*" cannot list resource "nodes"/);
  });

  it('gives up at its deadline when the API never answers', async () => {
    sim.access = { list: new Set(), hang: true };
    const err = await kubeGet(api(), '/api/v1/pods', 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as Error).message).toBe('timed out after 300 ms');
    expect((err as KubeApiError).status).toBeUndefined();
  });

  it('refuses an endpoint that is not https', async () => {
    await expect(kubeGet(api({ endpoint: sim.url.replace('https', 'http') }), '/api/v1/nodes', 1000)).rejects.toThrow(
      /must be https/,
    );
  });

  it('names a refused connection (an unreachable endpoint)', async () => {
    const err = await kubeGet(api({ endpoint: 'https://127.0.0.1:1' }), '/api/v1/nodes', 2000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
  });
});
