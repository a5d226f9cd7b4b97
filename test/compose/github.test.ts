/**
 * A process's GitHub clients as `githubClients` and `githubAppClient` build them from the
 * settings, against the GitHub simulator: requests counted there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubAppClient, githubClients, type GitHubSettings } from '../../lib/compose/github.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { GitHubSimulator } from '../sim/index.js';
import { APP_ID, INSTALLATION_ID, testPrivateKey } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';

let sim: GitHubSimulator;
let settings: GitHubSettings;
beforeAll(async () => {
  sim = await GitHubSimulator.start();
  sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
  settings = { apiUrl: sim.url, pace: { spacingMs: 0 } };
});
afterAll(async () => sim?.close());

const app = () => ({ kind: 'app' as const, appId: APP_ID, privateKey: testPrivateKey() });

describe('githubClients: the installation clients of a process', () => {
  it('reach the settings’ API as the installation, and count the rate limit left when asked to', async () => {
    const run = sim.addRun({ repo: 'acme/compose-github', jobs: [{ name: 'build', conclusion: 'failure' }] });
    const metrics = new MemoryMetrics();
    const client = githubClients(settings, app(), new MemoryLog(), { retryBaseMs: 1, rateLimitMetrics: metrics });
    sim.resetRequests();
    const { data } = await client(INSTALLATION_ID).rest.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
      owner: 'acme',
      repo: 'compose-github',
      run_id: run.id,
    });
    expect(data.id).toBe(run.id);
    expect(sim.requests.map((r) => r.path)).toContain(`/repos/acme/compose-github/actions/runs/${run.id}`);
    expect(metrics.totals.has('RateLimitRemaining')).toBe(true);
  });
});

describe('githubAppClient: the App’s own client for the /app endpoints', () => {
  it('with App credentials, lists the App’s webhook deliveries', async () => {
    sim.addDelivery({
      guid: 'compose-guid',
      event: 'workflow_run',
      action: 'completed',
      statusCode: 502,
      deliveredAt: new Date().toISOString(),
    });
    const client = githubAppClient(settings, app(), new MemoryLog(), { retryBaseMs: 1 });
    expect(client).toBeDefined();
    const { data } = await client!.request('GET /app/hook/deliveries');
    expect(data.map((d) => d.guid)).toContain('compose-guid');
  });

  it('with a token, none: a token cannot call the /app endpoints', () => {
    expect(githubAppClient(settings, { kind: 'token', token: 'ghp_x' }, new MemoryLog())).toBeUndefined();
  });
});
