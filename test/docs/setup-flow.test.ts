import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyFrom } from '../../lib/config/secrets.js';
import { GitHubSimulator } from '../sim/index.js';
import { pressTheButton, removeSandboxes, sandbox, shellEnv, type } from './support.js';

const HOOK = 'https://tunnel.example.com/webhook';

/**
 * `reprise setup --dotenv` as a person runs it on a fresh checkout: the real `reprise` binary in a
 * shell, a browser (this test) pressing the button, and the simulator standing in for GitHub's web
 * host and API (GITHUB_API_URL=…/api/v3 makes its origin the web host, as on GitHub Enterprise Server).
 */
describe('reprise setup through the binary: the manifest flow end to end', () => {
  let sim: GitHubSimulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    env = shellEnv({ GITHUB_API_URL: `${sim.url}/api/v3` });
  });
  afterAll(async () => {
    removeSandboxes();
    await sim.close();
  });

  it('page, form posted to GitHub, redirect back, code exchanged, .env written 0600 with the App; no secret printed', async () => {
    const dir = sandbox();
    const typed = type(`npx reprise setup --dotenv .env --webhook-url ${HOOK}`, dir, env);
    try {
      const visit = await pressTheButton(typed);
      const state = new URL(visit.action).searchParams.get('state') ?? '';
      expect(state).toMatch(/^[0-9a-f]{40}$/);
      expect(visit.action).toBe(`${sim.url}/settings/apps/new?state=${state}`);
      expect(visit.manifest).toMatchObject({
        hook_attributes: { url: HOOK, active: true },
        redirect_url: `${visit.pageUrl}callback`,
        default_events: ['workflow_run', 'workflow_job'],
      });
      const back = new URL(visit.callbackUrl);
      expect(`${back.origin}${back.pathname}`).toBe(`${visit.pageUrl}callback`);
      expect(back.searchParams.get('state')).toBe(state);
      expect(visit.status).toBe(200);
      expect(await typed.exited).toBe(0);
    } finally {
      await typed.stop();
    }

    const app = sim.app;
    expect(sim.count('POST', /^\/app-manifests\/[0-9a-f]+\/conversions$/)).toBe(1);
    const file = join(dir, '.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = parseEnv(readFileSync(file, 'utf8'));
    expect(stored.APP_ID).toBe(String(app.id));
    expect(stored.WEBHOOK_SECRET).toBe(app.webhookSecret);
    expect(stored.GITHUB_API_URL).toBe(`${sim.url}/api/v3`);
    expect(privateKeyFrom(stored)?.trim()).toBe(app.pem.trim());

    const printed = typed.stdout() + typed.stderr();
    expect(typed.stdout()).toContain(`Install it: ${app.htmlUrl}/installations/new`);
    expect(printed).not.toContain(app.webhookSecret);
    expect(printed).not.toContain('PRIVATE KEY');
    for (const line of app.pem.split('\n').filter((l) => l.length > 20)) expect(printed).not.toContain(line);
  });

  it('the old --env-file is refused with exit 2 naming --dotenv, before any page is served', async () => {
    // When the file exists, Node reads it and runs the command; when it is missing, Node 20 exits first.
    const dir = sandbox();
    writeFileSync(join(dir, 'old.env'), 'APP_ID=1\n');
    const typed = type(`npx reprise setup --env-file old.env --webhook-url ${HOOK}`, dir, env);
    expect(await typed.exited).toBe(2);
    expect(typed.stderr()).toContain('--env-file is Node');
    expect(typed.stderr()).toContain('use --dotenv PATH');
    expect(typed.stderr()).not.toContain('Open http');
    expect(existsSync(join(dir, '.env'))).toBe(false);
  });
});
