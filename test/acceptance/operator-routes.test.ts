/**
 * Operator routes behind a key, off the public path. The port a tunnel exposes to GitHub serves
 * `/webhook`, `/signals` and `/healthz` only; `GET /decisions`, `GET /report-facts` and `POST /replay` listen on a
 * loopback port and ask for the token the runtime keeps in its data directory, which the CLI reads.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisions } from '../../lib/cli/decisions.js';
import { captureIo } from '../cli/support.js';
import { type LocalSetup, startLocal } from '../support/local.js';

const ADMIN_ROUTES = [
  ['GET', '/decisions'],
  ['GET', '/report-facts'],
  ['POST', '/replay'],
  ['POST', '/redrive'],
  ['GET', '/pauses'],
  ['POST', '/pause'],
  ['POST', '/resume'],
] as const;

describe('operator routes behind a key, off the public path', () => {
  let local: LocalSetup;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'reprise-admin-'));
    local = await startLocal({ dataDir });
  });
  afterAll(async () => {
    await local.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the token is created on first start in the data directory, readable by its owner only', async () => {
    const file = join(dataDir, 'admin-token');
    expect(local.rt.adminTokenFile).toBe(file);
    expect((await readFile(file, 'utf8')).trim()).toBe(local.rt.adminToken);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(local.rt.adminToken.length).toBeGreaterThanOrEqual(43);
  });

  it('the admin port listens on loopback only, apart from the public port', () => {
    expect(new URL(local.rt.adminUrl).hostname).toBe('127.0.0.1');
    expect(new URL(local.rt.adminUrl).port).not.toBe(new URL(local.rt.url).port);
  });

  it.each(ADMIN_ROUTES)(
    'the admin routes refuse %s %s without the token, or with a wrong one: 401',
    async (method, path) => {
      const url = `${local.rt.adminUrl}${path}`;
      const none = await fetch(url, { method, ...(method === 'POST' && { body: '{}' }) });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const wrong = await fetch(url, { method, headers: { authorization: `Bearer ${'x'.repeat(43)}` } });
      expect(wrong.status).toBe(401);
      const basic = await fetch(url, { method, headers: { authorization: `Basic ${local.rt.adminToken}` } });
      expect(basic.status).toBe(401);
    },
  );

  it('the admin routes accept the CLI’s request: the token read from the data directory', async () => {
    const io = captureIo({});
    expect(await decisions(['--local', local.rt.adminUrl, '--data-dir', dataDir, '--json'], io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual([]);
    const direct = await fetch(`${local.rt.adminUrl}/decisions`, {
      headers: { authorization: `Bearer ${local.rt.adminToken}` },
    });
    expect(direct.status).toBe(200);
  });

  it('the CLI without the token says where it looked; with a wrong one, that the token is not this runtime’s', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'reprise-none-'));
    try {
      const io = captureIo({});
      expect(await decisions(['--local', local.rt.adminUrl, '--data-dir', elsewhere], io)).toBe(1);
      expect(io.err()).toContain(`no admin token for the local runtime in ${elsewhere}/admin-token`);
      const wrong = captureIo({ REPRISE_ADMIN_TOKEN: 'not-the-token' });
      expect(await decisions(['--local', local.rt.adminUrl], wrong)).toBe(1);
      expect(wrong.err()).toMatch(/answered 401: .*is not this runtime's/);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it.each(ADMIN_ROUTES)(
    'the public port serves no admin route: %s %s is 404, even with the token',
    async (method, path) => {
      const res = await fetch(`${local.rt.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${local.rt.adminToken}` },
        ...(method === 'POST' && { body: '{}' }),
      });
      expect(res.status).toBe(404);
    },
  );

  it('the public port still serves /webhook, /signals and /healthz', async () => {
    expect((await fetch(`${local.rt.url}/healthz`)).status).toBe(200);
    // Unsigned: refused by the handler (not 404), which proves the route is there.
    for (const path of ['/webhook', '/signals']) {
      const res = await fetch(`${local.rt.url}${path}`, { method: 'POST', body: '{}' });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).not.toBe(404);
    }
  });
});
