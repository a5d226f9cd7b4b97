/**
 * The `reprise` command talks only to the GitHub it was told, run as a user runs it (the bin
 * shim, a process in a directory of its own): a `.env` is read when `--dotenv` names it or in
 * reprise's own checkout (recognised by its directory, never by a package.json that may be a
 * link), never from whatever directory the command runs in; credentials go
 * over https only (plain http only to this machine); and the host it calls is said first.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, testPrivateKey } from '../support/harness.js';
import { checkout, removeSandboxes, ROOT } from '../docs/support.js';

const BIN = join(import.meta.dirname, '../../lib/cli/bin.mjs');
const KEY = testPrivateKey().trim().replace(/\n/g, '\\n');

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `reprise ARGS` in `cwd` with only `env` (and PATH, HOME) in its environment. */
const reprise = (args: readonly string[], cwd: string, env: Record<string, string> = {}, bin = BIN): Promise<Ran> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd,
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: cwd,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          ...env,
        },
      },
      (err, stdout, stderr) =>
        resolve({
          code: err ? ((err as { code?: number }).code ?? 1) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
        }),
    );
  });

describe('the reprise command talks only to the GitHub it was told', () => {
  /** A "GitHub" on loopback that records what reaches it, and refuses it. */
  let recorder: Server;
  let url: string;
  const received: IncomingMessage[] = [];
  let dir: string;

  beforeAll(async () => {
    recorder = createServer((req, res) => {
      received.push(req);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Bad credentials"}');
    });
    await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
    // Someone else's checkout: it even calls itself reprise, and its .env points at the recorder.
    dir = mkdtempSync(join(tmpdir(), 'reprise-untrusted-'));
    writeFileSync(join(dir, 'package.json'), '{"name":"reprise","version":"0.1.0"}\n');
    writeFileSync(join(dir, '.env'), `APP_ID=${APP_ID}\nPRIVATE_KEY="${KEY}"\nGITHUB_API_URL=${url}\n`);
  });
  beforeEach(() => {
    received.length = 0;
  });
  afterAll(async () => {
    removeSandboxes();
    rmSync(dir, { recursive: true, force: true });
    recorder.closeAllConnections();
    await new Promise((r) => recorder.close(r));
  });

  it('a .env in the directory the command runs in is not read: the GitHub it names receives nothing', async () => {
    const [status, explain, replay] = await Promise.all([
      reprise(['status'], dir),
      reprise(['explain', 'acme/web#12'], dir),
      reprise(['replay', 'acme/web#12', '--local', 'http://127.0.0.1:1'], dir, { REPRISE_ADMIN_TOKEN: 'x' }),
    ]);
    for (const r of [status, explain, replay]) expect(r.code).toBe(1);
    expect(status.stderr).toContain("reprise status: this command needs the App's credentials");
    expect(explain.stderr).toContain('reprise explain: GitHub credentials missing');
    expect(replay.stderr).toContain('reprise replay: GitHub credentials missing');
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it('--dotenv FILE is read, and the command says the GitHub host it calls before calling it (on stderr with --json)', async () => {
    const text = await reprise(['status', '--dotenv', '.env'], dir);
    expect(text.code).toBe(1);
    const host = new URL(url).host;
    expect(text.stdout.split('\n')[0]).toBe(`GitHub host: ${host} (${url})`);
    expect(text.stderr).toContain(`GitHub refused the credentials (401 Bad credentials) for GET ${url}/app`);
    // The App's JWT went where the named file said, and only there.
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /app']);
    expect(received[0]?.headers.authorization).toMatch(/^bearer eyJ/i);

    const json = await reprise(['explain', 'acme/web#12', '--json', `--dotenv=${join(dir, '.env')}`], tmpdir());
    expect(json.code).toBe(1);
    expect(json.stdout).toBe('');
    expect(json.stderr.split('\n')[0]).toBe(`GitHub host: ${host} (${url})`);

    const missing = await reprise(['status', '--dotenv', 'nowhere.env'], dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`reprise status: --dotenv: cannot read ${join(dir, 'nowhere.env')}: ENOENT`);
  });

  it("reprise's own checkout, recognised by its directory, reads its .env", async () => {
    const own = checkout();
    writeFileSync(join(own, '.env'), `APP_ID=${APP_ID}\nPRIVATE_KEY="${KEY}"\nGITHUB_API_URL=${url}\n`);
    const r = await reprise(['status'], own, {}, join(own, 'lib/cli/bin.mjs'));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`GitHub host: ${new URL(url).host}`);
    expect(received.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /app']);
  });

  it.each([
    ['a clone committing package.json as a symlink to the installed package', ['package.json']],
    ['a directory linking every file of the checkout (package.json, lib, dist …)', 'all'],
  ] as const)('the symlinked checkout → 0 requests to the named host: %s', async (_what, linked) => {
    const clone = mkdtempSync(join(tmpdir(), 'reprise-clone-'));
    try {
      const names = linked === 'all' ? readdirSync(ROOT).filter((n) => !n.startsWith('.')) : linked;
      for (const name of names) symlinkSync(join(ROOT, name), join(clone, name));
      writeFileSync(join(clone, '.env'), `APP_ID=${APP_ID}\nPRIVATE_KEY="${KEY}"\nGITHUB_API_URL=${url}\n`);
      const runs = await Promise.all([
        reprise(['status'], clone),
        reprise(['explain', 'acme/web#12'], clone),
        // The command reached through the clone's own links, as its package.json's bin names it.
        ...(linked === 'all' ? [reprise(['status'], clone, {}, join(clone, 'lib/cli/bin.mjs'))] : []),
      ]);
      for (const r of runs) {
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/credentials missing|needs the App's credentials/);
      }
      expect(received.map((q) => `${q.method} ${q.url}`)).toEqual([]);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });

  it.each([
    [['status'], { GITHUB_API_URL: 'http://example.invalid' }, 'GITHUB_API_URL is http://example.invalid'],
    [
      ['explain', 'acme/web#12'],
      { GITHUB_API_URL: 'http://example.invalid' },
      'GITHUB_API_URL is http://example.invalid',
    ],
    [
      ['explain', 'acme/web#12'],
      { GITHUB_GRAPHQL_URL: 'http://example.invalid/graphql' },
      'GITHUB_GRAPHQL_URL is http://example.invalid/graphql',
    ],
    [
      ['backtest', 'acme/web'],
      { GITHUB_API_URL: 'http://example.invalid' },
      'GITHUB_API_URL is http://example.invalid',
    ],
    [
      ['replay', '6f1e3c1a-1111-4222-8333-944455556666'],
      { GITHUB_API_URL: 'http://10.0.0.1/api/v3' },
      'GITHUB_API_URL is http://10.0.0.1/api/v3',
    ],
    [
      [
        'setup',
        '--dotenv',
        'new.env',
        '--webhook-url',
        'https://h.example.com/webhook',
        '--api-url',
        'http://example.invalid',
      ],
      {},
      '--api-url is http://example.invalid',
    ],
  ])(
    'credentials are never sent to a non-https URL except loopback: %j with %j is refused naming the URL, nothing sent',
    async (args, env, named) => {
      const r = await reprise(args, tmpdir(), { APP_ID, PRIVATE_KEY: KEY, GITHUB_API_URL: url, ...env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(named);
      expect(r.stderr).toContain('reprise sends GitHub credentials only over https');
      expect(r.stderr).not.toContain('Open http');
      expect(received).toEqual([]);
    },
  );
});
