import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../lib/cli/io.js';
import {
  defaultAdminUrl,
  localRequest,
  localToken,
  localTokenFile,
  localUrl,
  requireLoopbackAdminUrl,
} from '../../lib/cli/local-runtime.js';
import { captureIo, closedPort } from './support.js';

describe('local-runtime: where the operator port is', () => {
  it('ADMIN_PORT, else PORT + 1, on 127.0.0.1', () => {
    expect(defaultAdminUrl({})).toBe('http://127.0.0.1:3001');
    expect(defaultAdminUrl({ PORT: '4000' })).toBe('http://127.0.0.1:4001');
    expect(defaultAdminUrl({ PORT: '4000', ADMIN_PORT: '9000' })).toBe('http://127.0.0.1:9000');
  });

  it('--local as given; bare, the default; absent, none', () => {
    expect(localUrl({}, 'http://127.0.0.1:5555')).toBe('http://127.0.0.1:5555');
    expect(localUrl({ PORT: '4000' }, '')).toBe('http://127.0.0.1:4001');
    expect(localUrl({}, '  ')).toBe('http://127.0.0.1:3001');
    expect(localUrl({}, undefined)).toBeUndefined();
  });
});

describe('local-runtime: the admin token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reprise-local-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the token file is in the data directory, .reprise without one', () => {
    expect(localTokenFile(undefined)).toBe('.reprise/admin-token');
    expect(localTokenFile('/var/reprise/')).toBe('/var/reprise/admin-token');
  });

  it('REPRISE_ADMIN_TOKEN first, else the file, trimmed', async () => {
    writeFileSync(join(dir, 'admin-token'), 'from-file\n');
    expect(await localToken(captureIo({ REPRISE_ADMIN_TOKEN: ' from-env ' }), dir)).toBe('from-env');
    expect(await localToken(captureIo({}), dir)).toBe('from-file');
  });

  it('no token: an error naming the file and both ways to give one; an unreadable file says why', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    await expect(localToken(captureIo({}), empty)).rejects.toThrow(
      `no admin token for the local runtime in ${empty}/admin-token: pass --data-dir DIR as given to "npm start", or set REPRISE_ADMIN_TOKEN`,
    );
    writeFileSync(join(empty, 'admin-token'), '  \n');
    await expect(localToken(captureIo({}), empty)).rejects.toThrow('no admin token');
    const notFile = join(dir, 'dir-token');
    mkdirSync(join(notFile, 'admin-token'), { recursive: true });
    await expect(localToken(captureIo({}), notFile)).rejects.toThrow(
      `cannot read the local runtime's admin token ${notFile}/admin-token: EISDIR`,
    );
  });
});

describe('local-runtime: calling the operator routes', () => {
  let server: Server;
  let url: string;
  const seen: { method?: string; url?: string; authorization?: string; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
        if (req.headers.authorization !== 'Bearer t0k') return res.writeHead(401).end('{"error":"unauthorized"}');
        if (req.url === '/decisions') return res.writeHead(200).end('{"decisions":[]}');
        if (req.url === '/replay')
          return res.writeHead(409, { 'content-type': 'application/json' }).end('{"error":"already decided"}');
        res.writeHead(404).end('Not Found');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });
  const io = (token = 't0k') => captureIo({ REPRISE_ADMIN_TOKEN: token });

  it('sends the token as a bearer, the body as JSON, and returns the parsed answer', async () => {
    expect(await localRequest(io(), url, 'GET', '/decisions')).toEqual({ decisions: [] });
    await localRequest(io(), { url }, 'POST', '/replay', { id: 'x' }, [409]);
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/replay', authorization: 'Bearer t0k', body: '{"id":"x"}' });
  });

  it('a 4xx listed as accepted is returned; any other failure names the URL, the answer and a hint', async () => {
    expect(await localRequest(io(), url, 'POST', '/replay', {}, [409])).toEqual({ error: 'already decided' });
    const base = url.replace(/\/$/, '');
    await expect(localRequest(io(), url, 'POST', '/replay', {})).rejects.toThrow(
      `POST ${base}/replay answered 409: already decided`,
    );
    await expect(localRequest(io(), url, 'GET', '/nowhere')).rejects.toThrow(
      `GET ${base}/nowhere answered 404: Not Found (the public port? --local takes the admin port, PORT + 1 by default)`,
    );
    await expect(localRequest(io('wrong'), url, 'GET', '/decisions')).rejects.toThrow(
      `GET ${base}/decisions answered 401: unauthorized (the token in .reprise/admin-token or REPRISE_ADMIN_TOKEN is not this runtime's)`,
    );
  });

  it.each([
    ['plain http to another host', 'http://10.0.0.5:3001'],
    ['https to another host', 'https://reprise.example.com'],
    ['a name that merely starts like loopback', 'http://127.0.0.1.example.com:3001'],
    ['another scheme', 'ftp://127.0.0.1:3001'],
    ['no URL at all', 'not a url'],
  ])('the admin token goes only to loopback URLs: %s is refused before anything is sent', async (_what, target) => {
    const before = seen.length;
    let fetched = 0;
    const io = captureIo({ REPRISE_ADMIN_TOKEN: 't0k' });
    const counting = { ...io, fetch: (async () => (fetched++, new Response('{}'))) as typeof fetch };
    await expect(localRequest(counting, target, 'GET', '/decisions')).rejects.toThrow(
      `--local ${target}: the admin token goes only to the local runtime on this machine`,
    );
    expect(fetched).toBe(0);
    expect(seen.length).toBe(before);
  });

  it.each(['http://127.0.0.1:PORT', 'http://localhost:PORT', 'http://[::1]:PORT'])(
    'the admin token goes to %s',
    (target) => {
      expect(() => requireLoopbackAdminUrl(target.replace('PORT', '3001'))).not.toThrow();
    },
  );

  it('a runtime that is not running: cannot reach it, with the code and a hint', async () => {
    const port = await closedPort();
    const err = await localRequest(io(), `http://127.0.0.1:${port}`, 'GET', '/decisions').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toBe(
      `cannot reach the local runtime: GET http://127.0.0.1:${port}/decisions failed (ECONNREFUSED); is "npm start" running?`,
    );
  });
});
