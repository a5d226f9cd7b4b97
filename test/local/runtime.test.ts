/**
 * startRuntime assembles the local runtime: it refuses a configuration it cannot run with before
 * anything listens, keeps its data private and counts its boots on a data dir, serves only the
 * public routes on the public port, and closes everything it opened.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import { startRuntime } from '../../lib/local/runtime.js';
import { GitHubSimulator } from '../sim/index.js';
import { appEnv, UNPACED_ENV } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';

const LISTENING = 'reprise local runtime listening';
const RESTART = 'restart: queue and claims of earlier processes settled';

describe('startRuntime', () => {
  let sim: GitHubSimulator;
  let dir: string;
  const env = () => ({ ...appEnv(sim.url), WEBHOOK_SECRET: 'runtime-secret', ...UNPACED_ENV });
  const start = async (over: { env?: Record<string, string>; dataDir?: string; eventsFile?: string } = {}) => {
    const log = new MemoryLog();
    const rt = await startRuntime({
      env: { ...env(), ...over.env },
      log,
      port: 0,
      ...(over.dataDir && { dataDir: over.dataDir }),
      ...(over.eventsFile && { eventsFile: over.eventsFile }),
    });
    return { rt, log };
  };

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    dir = await mkdtemp(join(tmpdir(), 'reprise-runtime-'));
  });
  afterAll(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['no webhook secret', { WEBHOOK_SECRET: '' }, 'WEBHOOK_SECRET is required'],
    ['APP_ID without its key', { PRIVATE_KEY: '' }, 'APP_ID is set but PRIVATE_KEY or PRIVATE_KEY_PATH is missing'],
  ])('%s: a ConfigError before anything listens', async (_what, over, message) => {
    const log = new MemoryLog();
    const started = startRuntime({ env: { ...env(), ...over }, log, port: 0 });
    await expect(started).rejects.toThrow(ConfigError);
    await expect(started).rejects.toThrow(message);
    expect(log.lines).toEqual([]);
  });

  it('in memory: says nothing is kept, serves /healthz on the public port and no operator route there', async () => {
    const { rt, log } = await start();
    try {
      expect(log.lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          message: 'no --data-dir: the ledger and the queue are in memory, and nothing is kept across restarts',
        }),
      );
      expect(log.lines.some((l) => l.message === RESTART)).toBe(false);
      expect(log.lines.find((l) => l.message === LISTENING)).toMatchObject({
        url: rt.url,
        webhook: `${rt.url}/webhook`,
        admin: rt.adminUrl,
        dynamodb: 'dynalite in memory',
        queue: 'in memory: nothing kept across restarts',
      });
      expect(rt.adminTokenFile).toBeUndefined();
      const health = await fetch(`${rt.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true, github: sim.url, queue: { visible: 0, inFlight: 0 } });
      const decisions = await fetch(`${rt.url}/decisions`, { headers: { authorization: `Bearer ${rt.adminToken}` } });
      expect(decisions.status).toBe(404);
      // Port 0 for the public port: the operator routes take any free port, not a fixed one beside it.
      expect(rt.adminUrl).not.toBe(rt.url);
    } finally {
      await rt.close();
    }
  });

  it('close() stops both servers: neither the public nor the admin port answers after it', async () => {
    const { rt } = await start();
    await rt.close();
    await expect(fetch(`${rt.url}/healthz`)).rejects.toThrow();
    await expect(fetch(`${rt.adminUrl}/decisions`)).rejects.toThrow();
  });

  it('on a data dir: private (0700), the admin token kept in it, one boot generation more each start', async () => {
    const data = join(dir, 'data');
    const first = await start({ dataDir: data });
    await first.rt.close();
    const second = await start({ dataDir: data });
    try {
      expect((await stat(data)).mode & 0o777).toBe(0o700);
      expect(second.rt.adminTokenFile).toBe(join(data, 'admin-token'));
      expect(second.rt.adminToken).toBe(first.rt.adminToken);
      expect(first.log.lines.find((l) => l.message === RESTART)).toMatchObject({ generation: 1 });
      expect(second.log.lines.find((l) => l.message === RESTART)).toMatchObject({
        generation: 2,
        claims: expect.any(Object),
        queue: expect.any(Object),
      });
      expect(second.log.lines.find((l) => l.message === LISTENING)).toMatchObject({
        generation: 2,
        dynamodb: `dynalite on disk at ${data}`,
        queue: `journaled to dynalite at ${data}`,
        admin_token_file: join(data, 'admin-token'),
      });
    } finally {
      await second.rt.close();
    }
  });

  it('an events file given as an option wins over EVENTS_FILE and is named in the listening line', async () => {
    const file = join(dir, 'events.jsonl');
    const { rt, log } = await start({ env: { EVENTS_FILE: join(dir, 'not-this.jsonl') }, eventsFile: file });
    try {
      expect(rt.events).toBeDefined();
      expect(log.lines.find((l) => l.message === LISTENING)).toMatchObject({ events_file: file });
    } finally {
      await rt.close();
    }
    await expect(readFile(join(dir, 'not-this.jsonl'))).rejects.toThrow(/ENOENT/);
  });
});
