import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubUrls } from '../../lib/cli/setup.js';
import { setup } from '../../lib/cli/setup.js';
import { parseAppSecret, privateKeyFrom } from '../../lib/config/secrets.js';
import { GitHubSimulator } from '../sim/index.js';
import { testPrivateKey } from '../support/harness.js';
import { unescapeHtml } from '../docs/support.js';
import { type CapturedIo, captureIo, FakeCloudFormation, FakeSecretsManager, waitFor } from './support.js';

/** What a browser would see and submit: the page, its form's action and its manifest field. */
async function openPage(io: CapturedIo) {
  const pageUrl = await waitFor(() => /Open (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(io.err())?.[1]);
  const res = await fetch(pageUrl);
  const html = await res.text();
  // The browser keeps the flow's cookie and sends it back with GitHub's redirect.
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const action = unescapeHtml(/<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '');
  const manifest = JSON.parse(unescapeHtml(/name="manifest" value="([^"]+)"/.exec(html)?.[1] ?? '{}')) as Record<
    string,
    unknown
  >;
  const state = new URL(action).searchParams.get('state') ?? '';
  return { pageUrl, status: res.status, action, manifest, state, cookie };
}

/** GitHub's redirect back, in the browser that opened the page (its cookie), or in another (`cookie: ''`). */
/** A GET with the headers given as they are (fetch sets Host itself). */
const rawGet = (port: number, path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

const callback = async (page: { pageUrl: string; cookie: string }, q: Record<string, string>, cookie = page.cookie) => {
  const res = await fetch(`${page.pageUrl}callback?${new URLSearchParams(q).toString()}`, {
    headers: cookie ? { cookie } : {},
  });
  return { status: res.status, html: await res.text() };
};

describe('reprise setup: the GitHub App manifest flow', () => {
  let sim: GitHubSimulator;
  let dir: string;
  const pem = testPrivateKey();
  let seq = 0;
  const newCode = (id: number): string => {
    const code = `code-${++seq}`;
    sim.addManifestCode(code, { id, slug: `reprise-${id}`, pem, webhookSecret: `whsec-${id}` });
    return code;
  };

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    dir = mkdtempSync(join(tmpdir(), 'reprise-setup-'));
  });
  afterAll(async () => {
    await sim.close();
  });

  it('the full setup flow to a .env: page served, state checked, code exchanged, file written 0600', async () => {
    const envFile = join(dir, 'flow.env');
    const io = captureIo({});
    const done = setup(
      [
        '--dotenv',
        envFile,
        '--webhook-url',
        'https://hooks.example.com/webhook',
        '--github-url',
        'https://github.com',
        '--api-url',
        sim.url,
      ],
      io,
    );
    const page = await openPage(io);
    expect(page.status).toBe(200);
    expect(page.action).toBe(`https://github.com/settings/apps/new?state=${page.state}`);
    expect(page.state).toMatch(/^[0-9a-f]{40}$/);
    expect(page.manifest).toMatchObject({
      hook_attributes: { url: 'https://hooks.example.com/webhook', active: true },
      redirect_url: `${page.pageUrl}callback`,
      public: false,
      default_events: ['workflow_run', 'workflow_job'],
    });

    const code = newCode(424_201);
    expect((await callback(page, { code, state: 'f'.repeat(40) })).status).toBe(400);
    expect(sim.count('POST', /^\/app-manifests\//)).toBe(0);
    const ok = await callback(page, { code, state: page.state });
    expect(ok.status).toBe(200);
    expect(ok.html).toContain('https://github.com/apps/reprise-424201/installations/new');
    expect(await done).toBe(0);
    expect(sim.count('POST', /^\/app-manifests\/code-\d+\/conversions$/)).toBe(1);

    expect(io.out()).toContain('Install it: https://github.com/apps/reprise-424201/installations/new');
    expect(io.out() + io.err()).not.toContain('PRIVATE KEY');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(envFile, 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('PRIVATE_KEY='))).toHaveLength(1);
    const env = parseEnv(text);
    expect(env.APP_ID).toBe('424201');
    expect(env.WEBHOOK_SECRET).toBe('whsec-424201');
    expect(env.GITHUB_API_URL).toBe(sim.url);
    expect(privateKeyFrom(env)?.trim()).toBe(pem.trim());
    // The escaped one-line form, as privateKeyFrom reads it when a loader leaves `\n` alone.
    const raw = /^PRIVATE_KEY="(.*)"$/m.exec(text)?.[1] ?? '';
    expect(privateKeyFrom({ PRIVATE_KEY: raw })?.trim()).toBe(pem.trim());
  });

  it('a callback with a wrong or missing state is refused with 400 and no code exchange', async () => {
    const io = captureIo({ GITHUB_API_URL: sim.url });
    const done = setup(['--dotenv', join(dir, 'state.env'), '--webhook-url', 'https://h.example.com/webhook'], io);
    const page = await openPage(io);
    const code = newCode(424_202);
    const before = sim.count('POST', /^\/app-manifests\//);
    const refused: Record<string, string>[] = [
      { code, state: 'nope' },
      { code },
      { code, state: page.state.replace(/.$/, 'x') },
    ];
    for (const q of refused) {
      expect((await callback(page, q)).status).toBe(400);
    }
    expect(sim.count('POST', /^\/app-manifests\//)).toBe(before);
    expect(io.err()).toContain('Refused a callback whose state does not match');
    expect((await callback(page, { code, state: page.state })).status).toBe(200);
    expect(await done).toBe(0);
  });

  it('the setup page answers only under Host 127.0.0.1:PORT: a page whose own name is rebound to 127.0.0.1 gets 421 and no state', async () => {
    const io = captureIo({ GITHUB_API_URL: sim.url });
    const done = setup(['--dotenv', join(dir, 'host.env'), '--webhook-url', 'https://h.example.com/webhook'], io);
    const page = await openPage(io);
    const { port, pathname } = new URL(page.pageUrl);
    const code = newCode(424_206);
    const before = sim.count('POST', /^\/app-manifests\//);
    for (const path of [pathname, `${pathname}callback?code=${code}&state=${page.state}`]) {
      const rebound = await rawGet(Number(port), path, { host: `evil.example:${port}`, cookie: page.cookie });
      expect(rebound.status).toBe(421);
      expect(rebound.body).not.toContain(page.state);
    }
    expect(sim.count('POST', /^\/app-manifests\//)).toBe(before);
    expect((await callback(page, { code, state: page.state })).status).toBe(200);
    expect(await done).toBe(0);
  });

  it('the state is served only at the path setup printed, and only to the browser that opened it first', async () => {
    const io = captureIo({ GITHUB_API_URL: sim.url });
    const done = setup(['--dotenv', join(dir, 'path.env'), '--webhook-url', 'https://h.example.com/webhook'], io);
    const page = await openPage(io);
    const { origin, pathname } = new URL(page.pageUrl);
    expect(pathname).toMatch(/^\/[0-9a-f]{32}\/$/);
    expect(page.cookie).toMatch(/^reprise_setup=[0-9a-f]{40}$/);
    // A port scan finds the server: the root names neither the page's path nor the state.
    const root = await fetch(`${origin}/`);
    const rootHtml = await root.text();
    expect(root.status).toBe(404);
    expect(rootHtml).not.toContain(pathname.slice(1, -1));
    expect(rootHtml).not.toContain(page.state);
    // Another browser, or a program, that learned the path: refused, without the state.
    const other = await fetch(page.pageUrl);
    expect(other.status).toBe(403);
    expect(await other.text()).not.toContain(page.state);
    // The browser that opened it may load it again.
    expect((await fetch(page.pageUrl, { headers: { cookie: page.cookie } })).status).toBe(200);
    await callback(page, { code: newCode(424_207), state: page.state });
    expect(await done).toBe(0);
  });

  it('a callback with the right state from another browser (no flow cookie) is refused 403 with no code exchange', async () => {
    const io = captureIo({ GITHUB_API_URL: sim.url });
    const done = setup(['--dotenv', join(dir, 'cookie.env'), '--webhook-url', 'https://h.example.com/webhook'], io);
    const page = await openPage(io);
    const code = newCode(424_208);
    const before = sim.count('POST', /^\/app-manifests\//);
    for (const cookie of ['', 'reprise_setup=' + 'f'.repeat(40)]) {
      expect((await callback(page, { code, state: page.state }, cookie)).status).toBe(403);
    }
    expect(sim.count('POST', /^\/app-manifests\//)).toBe(before);
    expect(io.err()).toContain('Refused a callback from a browser that did not open this setup page');
    expect((await callback(page, { code, state: page.state })).status).toBe(200);
    expect(await done).toBe(0);
  });

  it('the full setup flow to a stack: secret names and webhook URL from the outputs, both secrets written', async () => {
    const cf = new FakeCloudFormation({
      Reprise: {
        WebhookUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/webhook',
        GitHubAppSecretName: 'reprise/github-app',
        WebhookSecretName: 'reprise/webhook',
        TableName: 'reprise-table',
      },
    });
    const sm = new FakeSecretsManager(['reprise/github-app', 'reprise/webhook']);
    const io = captureIo({}, { cloudFormation: cf, secretsManager: sm });
    const done = setup(
      ['--stack', 'Reprise', '--org', 'acme', '--api-url', sim.url, '--github-url', 'https://github.com', '--json'],
      io,
    );
    const page = await openPage(io);
    expect(page.action).toBe(`https://github.com/organizations/acme/settings/apps/new?state=${page.state}`);
    expect(page.manifest.hook_attributes).toEqual({
      url: 'https://abc.execute-api.eu-west-1.amazonaws.com/webhook',
      active: true,
    });
    const code = newCode(424_203);
    expect((await callback(page, { code, state: page.state })).status).toBe(200);
    expect(await done).toBe(0);

    const app = parseAppSecret(sm.values.get('reprise/github-app') ?? '', 'app secret');
    expect(app).toEqual({ kind: 'app', appId: '424203', privateKey: pem });
    expect(sm.values.get('reprise/webhook')).toBe('whsec-424203');
    const out = JSON.parse(io.out()) as Record<string, unknown>;
    expect(out).toMatchObject({
      app: { id: 424_203, slug: 'reprise-424203' },
      installUrl: 'https://github.com/apps/reprise-424203/installations/new',
      stored: { stack: 'Reprise', appSecret: 'reprise/github-app', webhookSecret: 'reprise/webhook' },
    });
  });

  it('defaults match permissions: the served manifest asks by default for what merge_queue: requeue (the default) needs; --no-merge-queue declines', async () => {
    let id = 424_300;
    for (const [flags, expected] of [
      [[], { contents: 'write', pull_requests: 'write', merge_queues: 'write' }],
      [['--no-merge-queue'], { contents: 'read', pull_requests: 'read' }],
      [['--merge-queue'], { contents: 'write', pull_requests: 'write', merge_queues: 'write' }],
    ] as const) {
      const io = captureIo({ GITHUB_API_URL: sim.url });
      const file = join(dir, `mq${flags.join('')}.env`);
      const done = setup(['--dotenv', file, '--webhook-url', 'https://h.example.com/webhook', ...flags], io);
      const page = await openPage(io);
      const asked = page.manifest.default_permissions as Record<string, string>;
      expect(asked, flags.join(' ') || 'no flag').toMatchObject(expected);
      if (!('merge_queues' in expected)) expect(asked).not.toHaveProperty('merge_queues');
      await callback(page, { code: newCode(++id), state: page.state });
      expect(await done).toBe(0);
    }
  });

  it('--merge-queue with --no-merge-queue is refused as bad usage', async () => {
    const io = captureIo({ GITHUB_API_URL: sim.url });
    const args = ['--dotenv', join(dir, 'both.env'), '--webhook-url', 'https://h.example.com/webhook'];
    expect(await setup([...args, '--merge-queue', '--no-merge-queue'], io)).toBe(2);
    expect(io.err()).toContain('pass --merge-queue or --no-merge-queue, not both');
  });

  it('--report check_run reaches the served manifest as checks: write', async () => {
    const io = captureIo({ GITHUB_API_URL: sim.url });
    const done = setup(
      ['--dotenv', join(dir, 'checks.env'), '--webhook-url', 'https://h.example.com/webhook', '--report', 'check_run'],
      io,
    );
    const page = await openPage(io);
    expect((page.manifest.default_permissions as Record<string, string>).checks).toBe('write');
    await callback(page, { code: newCode(424_204), state: page.state });
    expect(await done).toBe(0);
  });

  it('an existing .env is never overwritten without --force, and nothing is created on GitHub', async () => {
    const envFile = join(dir, 'existing.env');
    writeFileSync(envFile, 'APP_ID=1\n');
    const io = captureIo({ GITHUB_API_URL: sim.url });
    expect(await setup(['--dotenv', envFile, '--webhook-url', 'https://h.example.com/webhook'], io)).toBe(1);
    expect(io.err()).toContain(`${envFile} exists; pass --force`);
    expect(io.err()).not.toContain('Open http');
    expect(readFileSync(envFile, 'utf8')).toBe('APP_ID=1\n');

    const forced = captureIo({ GITHUB_API_URL: sim.url });
    const done = setup(['--dotenv', envFile, '--webhook-url', 'https://h.example.com/webhook', '--force'], forced);
    const page = await openPage(forced);
    await callback(page, { code: newCode(424_205), state: page.state });
    expect(await done).toBe(0);
    expect(parseEnv(readFileSync(envFile, 'utf8')).APP_ID).toBe('424205');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['--env-file', 'x.env'],
    ['--env-file=x.env', undefined],
    ['--env-file-if-exists', 'x.env'],
  ])('%s, an option Node reads itself, is refused with exit 2 naming --dotenv', async (flag, value) => {
    const io = captureIo({ GITHUB_API_URL: sim.url });
    const argv = [flag, ...(value ? [value] : []), '--webhook-url', 'https://h.example.com/webhook'];
    expect(await setup(argv, io)).toBe(2);
    expect(io.err()).toContain(`reprise setup: ${flag.split('=')[0]} is Node's own option`);
    expect(io.err()).toContain('use --dotenv PATH');
    expect(io.err()).not.toContain('Open http');
  });

  it('a code GitHub does not know fails the setup with exit 1 and the URL tried', async () => {
    const envFile = join(dir, 'badcode.env');
    const io = captureIo({ GITHUB_API_URL: sim.url });
    const done = setup(['--dotenv', envFile, '--webhook-url', 'https://h.example.com/webhook'], io);
    const page = await openPage(io);
    expect((await callback(page, { code: 'never-issued', state: page.state })).status).toBe(502);
    expect(await done).toBe(1);
    expect(io.err()).toContain(`POST ${sim.url}/app-manifests/never-issued/conversions answered 404`);
    expect(existsSync(envFile)).toBe(false);
  });

  it('a missing stack or output fails before anything is served', async () => {
    const io = captureIo({}, { cloudFormation: new FakeCloudFormation({ Other: {} }) });
    expect(await setup(['--stack', 'Reprise'], io)).toBe(1);
    expect(io.err()).toContain('stack "Reprise" does not exist');
    const io2 = captureIo(
      {},
      { cloudFormation: new FakeCloudFormation({ Reprise: { WebhookUrl: 'https://x/webhook' } }) },
    );
    expect(await setup(['--stack', 'Reprise'], io2)).toBe(1);
    expect(io2.err()).toContain('has no output GitHubAppSecretName');
  });

  it.each([
    [{ githubUrl: 'https://github.com' }, 'https://github.com', 'https://api.github.com'],
    [{ githubUrl: 'https://ghe.example.com' }, 'https://ghe.example.com', 'https://ghe.example.com/api/v3'],
    [{ envApiUrl: 'https://ghe.example.com/api/v3' }, 'https://ghe.example.com', 'https://ghe.example.com/api/v3'],
    [{}, 'https://github.com', 'https://api.github.com'],
  ])('GitHub URLs for %j: web %s, API %s (GHES with --github-url https://HOST)', (input, web, api) => {
    expect(githubUrls(input)).toEqual({ webUrl: web, apiUrl: api });
  });

  it.each([
    [{ githubUrl: 'http://ghe.example.com' }, '--github-url is http://ghe.example.com'],
    [{ githubUrl: 'https://github.com', apiUrl: 'http://api.example.com' }, '--api-url is http://api.example.com'],
    [{ envApiUrl: 'http://ghe.example.com/api/v3' }, 'GITHUB_API_URL is http://ghe.example.com/api/v3'],
  ])('GitHub URLs %j over plain http off this machine are refused: "%s"', (input, message) => {
    expect(() => githubUrls(input)).toThrow(message);
  });

  it('GitHub URLs on this machine may be plain http (a simulator, a tunnel endpoint)', () => {
    expect(githubUrls({ envApiUrl: 'http://127.0.0.1:8080/api/v3' })).toEqual({
      webUrl: 'http://127.0.0.1:8080',
      apiUrl: 'http://127.0.0.1:8080/api/v3',
    });
    expect(githubUrls({ githubUrl: 'http://localhost:9000', apiUrl: 'http://[::1]:9001' }).apiUrl).toBe(
      'http://[::1]:9001',
    );
  });
});
