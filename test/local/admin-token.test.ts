/**
 * The key to the operator routes: kept in the data directory, the operator's file only, and
 * asked of every request as a bearer token.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { chmod, lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  adminTokenPath,
  discardExposedAdminToken,
  loadOrCreateAdminToken,
  requireToken,
} from '../../lib/local/admin-token.js';

describe('the admin token file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reprise-token-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('lives in the data directory, or in .reprise without one', () => {
    expect(adminTokenPath('/var/lib/reprise')).toBe('/var/lib/reprise/admin-token');
    expect(adminTokenPath(undefined)).toBe('.reprise/admin-token');
  });

  it('is created on first use: 43 base64url characters, the file 0600 in a directory 0700', async () => {
    const file = join(dir, 'data', 'admin-token');
    const token = await loadOrCreateAdminToken(file);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await readFile(file, 'utf8')).toBe(`${token}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'data'))).mode & 0o777).toBe(0o700);
  });

  it.each([
    ['group-readable (0640)', 0o640],
    ['world-readable (0644)', 0o644],
    ['group-writable (0620)', 0o620],
  ])('a token file with loose modes, %s, is replaced by a new token, 0600', async (_what, mode) => {
    const file = join(dir, 'nested', 'admin-token');
    const first = await loadOrCreateAdminToken(file);
    await chmod(file, mode);
    const second = await loadOrCreateAdminToken(file);
    expect(second).not.toBe(first);
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await readFile(file, 'utf8')).trim()).toBe(second);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'nested'))).mode & 0o077).toBe(0);
    expect(await readdir(join(dir, 'nested'))).toEqual(['admin-token']);
  });

  it('a token file that is a link is replaced, and the file it points at is left alone', async () => {
    const target = join(dir, 'elsewhere');
    await writeFile(target, `${'x'.repeat(43)}\n`, { mode: 0o600 });
    const file = join(dir, 'admin-token');
    await symlink(target, file);
    const token = await loadOrCreateAdminToken(file);
    expect(token).not.toBe('x'.repeat(43));
    expect((await lstat(file)).isFile()).toBe(true);
    expect(await readFile(target, 'utf8')).toBe(`${'x'.repeat(43)}\n`);
  });

  it('a token file of the operator’s only (0600) is kept: a restart keeps the same token', async () => {
    const file = join(dir, 'admin-token');
    const first = await loadOrCreateAdminToken(file);
    expect(await loadOrCreateAdminToken(file)).toBe(first);
    expect(await discardExposedAdminToken(file)).toBe(false);
    await chmod(file, 0o644);
    expect(await discardExposedAdminToken(file)).toBe(true);
    expect(await discardExposedAdminToken(file)).toBe(false);
  });

  it('a token too short to trust (under 32 characters) is replaced by a new one', async () => {
    const file = join(dir, 'admin-token');
    await writeFile(file, 'short\n', { mode: 0o600 });
    const token = await loadOrCreateAdminToken(file);
    expect(token).not.toBe('short');
    expect(token).toHaveLength(43);
    expect((await readFile(file, 'utf8')).trim()).toBe(token);
  });

  it('a path that cannot be read for another reason than absence is an error, not a new token', async () => {
    // A directory where the file should be: EISDIR, which no new token would fix.
    await expect(loadOrCreateAdminToken(dir)).rejects.toThrow(/EISDIR/);
  });
});

describe('requireToken', () => {
  const TOKEN = 'a'.repeat(43);
  let served = 0;
  const guarded = requireToken(TOKEN, async () => {
    served++;
    return { statusCode: 200, body: 'ok' };
  });
  const ask = async (authorization?: string) =>
    (await guarded({
      headers: authorization === undefined ? {} : { authorization },
    } as unknown as APIGatewayProxyEventV2)) as APIGatewayProxyStructuredResultV2;

  it.each([
    ['no Authorization header', undefined],
    ['another token of the same length', `Bearer ${'b'.repeat(43)}`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 42)}`],
    ['the token with more after it', `Bearer ${TOKEN}x`],
    ['the token as Basic credentials', `Basic ${TOKEN}`],
    ['the token without a scheme', TOKEN],
  ])('%s is 401 with a Bearer challenge, and the route is not served', async (_what, header) => {
    const before = served;
    const res = await ask(header);
    expect(res.statusCode).toBe(401);
    expect(res.headers?.['www-authenticate']).toBe('Bearer realm="reprise-admin"');
    expect(JSON.parse(res.body ?? '')).toEqual({
      error: 'the admin routes need the token from the data directory (admin-token)',
    });
    expect(served).toBe(before);
  });

  it.each([`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `Bearer   ${TOKEN}`])('"%s" is served', async (header) => {
    const before = served;
    expect((await ask(header)).statusCode).toBe(200);
    expect(served).toBe(before + 1);
  });
});
