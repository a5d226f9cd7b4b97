import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentSettings } from '../../lib/config/env.js';
import { parseAppSecret, rebuiltOnRotation } from '../../lib/config/secrets.js';
import { ConfigError } from '../../lib/errors.js';
import { errorLine, TEXT } from '../support/evidence.js';
import { APP_ID, type Harness, startHarness, testPrivateKey } from '../support/harness.js';

describe("the API's own host is always an allowed log host", () => {
  it('behind an API URL that is neither github.com nor GHES (a proxy, a data-residency host), its host is allowed', () => {
    const s = deploymentSettings({ GITHUB_API_URL: 'https://gh-proxy.example.com/github' });
    expect(s.logHosts).toContain('gh-proxy.example.com');
    expect(s.logHosts).toContain('*.actions.githubusercontent.com');
  });

  it('with LOG_HOSTS set, the API host is allowed beside them', () => {
    const s = deploymentSettings({ GITHUB_API_URL: 'https://ghe.example.com/api/v3', LOG_HOSTS: 'logs.example.net' });
    expect(s.logHosts).toEqual(['logs.example.net', 'ghe.example.com']);
  });

  describe('a decision', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness();
    });
    afterAll(async () => h.close());

    it('a job lost to a runner whose only evidence is its log, redirected to the API host, is re-run with no LOG_HOSTS set', async () => {
      // The simulator redirects logs to its own host, as a proxy or test double in front of GitHub would.
      const { logHosts } = deploymentSettings({ GITHUB_API_URL: h.sim.url });
      const run = h.sim.addRun({
        repo: 'acme/own-log-host',
        jobs: [{ name: 'test', conclusion: 'failure', annotations: [], log: errorLine(TEXT.selfHostedNamed('r-9')) }],
      });
      const res = await h.worker({ logHosts })(h.sqsEvent([h.message(run.id)]));
      expect(res.batchItemFailures).toEqual([]);
      expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'retried', run_id: run.id });
      expect(h.log.named('job log redirect refused: host not in the allow-list')).toHaveLength(0);
    });
  });
});

describe('a rotated App secret reaches warm functions', () => {
  const app = (appId: string) => JSON.stringify({ appId, privateKey: testPrivateKey() });

  it('the value built from the secret is built again when the secret changes, and kept while it does not', async () => {
    let stored = app(APP_ID);
    let builds = 0;
    const current = rebuiltOnRotation(
      async () => stored,
      (secret) => ({ n: ++builds, credentials: parseAppSecret(secret, 'GitHub App secret') }),
    );
    const first = await current();
    expect(await current()).toBe(first);
    stored = app('7654321');
    const rotated = await current();
    expect(rotated.n).toBe(2);
    expect(rotated.credentials).toMatchObject({ kind: 'app', appId: '7654321' });
    expect(await current()).toBe(rotated);
  });

  it('a secret that does not parse fails that call only; the next good secret is used', async () => {
    let stored = 'placeholder';
    const current = rebuiltOnRotation(
      async () => stored,
      (secret) => parseAppSecret(secret, 'GitHub App secret'),
    );
    await expect(current()).rejects.toBeInstanceOf(ConfigError);
    stored = app(APP_ID);
    await expect(current()).resolves.toMatchObject({ kind: 'app', appId: APP_ID });
  });
});
