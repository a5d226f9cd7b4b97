/**
 * The operator routes' server: loopback only, each route behind the admin token, the token given,
 * kept in the data directory, or held in memory.
 */
import type { Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeReplay } from '../../lib/compose/replay.js';
import { type AdminServer, type AdminServerOptions, serveAdmin } from '../../lib/local/admin-server.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { AttemptRecord } from '../../lib/records.js';
import { type Harness, startHarness } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

describe('serveAdmin', () => {
  let h: Harness;
  let dir: string;
  const log = new MemoryLog();
  const servers: AdminServer[] = [];
  let base: Omit<AdminServerOptions, 'port'>;
  const serve = async (over: Partial<AdminServerOptions> = {}) => {
    const s = await serveAdmin({ ...base, port: 0, ...over });
    servers.push(s);
    return s;
  };

  beforeAll(async () => {
    h = await startHarness();
    dir = await mkdtemp(join(tmpdir(), 'reprise-admin-server-'));
    const queue = embeddedRunQueue(new EmbeddedFifoQueue({ name: 'admin.fifo' }));
    base = { ledger: h.ledger, replay: composeReplay({ attempts: h.ledger.attempts, queue, log }), log };
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => close(s.server)));
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1, and every route asks for the token: 401 without it, served with it', async () => {
    const admin = await serve({ token: 'x'.repeat(43) });
    expect(new URL(admin.url).hostname).toBe('127.0.0.1');
    expect(admin.tokenFile).toBeUndefined();
    for (const [method, path] of [
      ['GET', '/decisions'],
      ['GET', '/report-facts?since=0'],
      ['POST', '/replay'],
      ['POST', '/redrive'],
    ] as const) {
      const without = await fetch(`${admin.url}${path}`, { method, ...(method === 'POST' && { body: '{}' }) });
      expect([method, path, without.status]).toEqual([method, path, 401]);
    }
    const res = await fetch(`${admin.url}/decisions`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ decisions: [] });
  });

  it('without a dead-letter redrive, POST /redrive is 404 behind the token', async () => {
    const admin = await serve({ token: 't'.repeat(43) });
    const res = await fetch(`${admin.url}/redrive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(res.status).toBe(404);
  });

  it('keeps its token in <dataDir>/admin-token, and a second server on that data dir asks for the same one', async () => {
    const first = await serve({ dataDir: dir });
    expect(first.tokenFile).toBe(join(dir, 'admin-token'));
    expect((await readFile(join(dir, 'admin-token'), 'utf8')).trim()).toBe(first.token);
    const second = await serve({ dataDir: dir });
    expect(second.token).toBe(first.token);
  });

  it('a token file named apart from the data dir wins over it', async () => {
    const file = join(dir, 'elsewhere', 'token');
    const admin = await serve({ dataDir: dir, tokenFile: file });
    expect(admin.tokenFile).toBe(file);
    expect((await readFile(file, 'utf8')).trim()).toBe(admin.token);
  });

  it('with neither a token nor a place to keep one: a fresh random token, held in memory', async () => {
    const [a, b] = [await serve(), await serve()];
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.tokenFile).toBeUndefined();
  });

  it('a route that fails is a 500 to the client and an "admin request failed" line in the log', async () => {
    const broken = {
      ...h.ledger,
      decisions: {
        list: async (): Promise<AttemptRecord[]> => {
          throw new Error('the table is gone');
        },
      },
    };
    const admin = await serve({ token: 'b'.repeat(43), ledger: broken });
    const res = await fetch(`${admin.url}/decisions`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(res.status).toBe(500);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'admin request failed', error: 'the table is gone' }),
    );
  });
});
