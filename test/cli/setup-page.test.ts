import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sameSecret, serveSetupPage, type SetupPage } from '../../lib/cli/setup-page.js';
import { captureIo } from './support.js';

/** A GET with the headers given as they are, Host included (fetch would set its own). */
const rawGet = (port: number, path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });

describe('setup-page: the page only its first browser is served', () => {
  let page: SetupPage | undefined;
  afterEach(async () => {
    await page?.close();
    page = undefined;
  });
  const open = async () => {
    const io = captureIo({});
    const callbacks: URL[] = [];
    page = await serveSetupPage(io, 0, (url, res) => {
      callbacks.push(url);
      res.writeHead(200).end('called back');
    });
    page.setHtml('<p>the manifest form</p>');
    const u = new URL(page.pageUrl);
    return { io, callbacks, u, port: Number(u.port), host: u.host };
  };

  it('a random path on 127.0.0.1; the first GET is served the page with the flow cookie, no-store and no referrer', async () => {
    const { u, port, host } = await open();
    expect(u.hostname).toBe('127.0.0.1');
    expect(u.pathname).toMatch(/^\/[0-9a-f]{32}\/$/);
    const first = await rawGet(port, u.pathname, { host });
    expect(first.status).toBe(200);
    expect(first.body).toBe('<p>the manifest form</p>');
    expect(first.headers['set-cookie']).toEqual([
      expect.stringMatching(new RegExp(`^reprise_setup=[0-9a-f]{40}; Path=${u.pathname}; HttpOnly; SameSite=Lax$`)),
    ]);
    expect(first.headers).toMatchObject({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  });

  it('another browser after the first is refused; the first, with its cookie, is served again and called back', async () => {
    const { callbacks, io, u, port, host } = await open();
    const first = await rawGet(port, u.pathname, { host });
    const cookie = String((first.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    expect((await rawGet(port, u.pathname, { host })).status).toBe(403);
    expect((await rawGet(port, u.pathname, { host, cookie })).status).toBe(200);
    const stranger = await rawGet(port, `${u.pathname}callback?code=c1`, { host });
    expect(stranger.status).toBe(403);
    expect(io.err()).toBe('Refused a callback from a browser that did not open this setup page.\n');
    expect(callbacks).toEqual([]);
    const ours = await rawGet(port, `${u.pathname}callback?code=c2&state=s`, { host, cookie });
    expect(ours.body).toBe('called back');
    expect(callbacks.map((c) => c.searchParams.get('code'))).toEqual(['c2']);
  });

  it('any other Host is 421 without the page; any other path is 404', async () => {
    const { u, port } = await open();
    const rebound = await rawGet(port, u.pathname, { host: `evil.example:${port}` });
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toContain('manifest form');
    expect(rebound.headers['set-cookie']).toBeUndefined();
    expect((await rawGet(port, '/', { host: u.host })).status).toBe(404);
  });

  it('secrets compare equal only when they are', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abd')).toBe(false);
    expect(sameSecret('abc', 'abcd')).toBe(false);
  });
});
