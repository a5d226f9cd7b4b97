/**
 * The local runtime on a shared machine: its data directory is the operator's alone before the
 * embedded DynamoDB opens in it, and a body too large for the intake is refused with 413 as
 * soon as that is known, never read to its end.
 */
import { mkdtemp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../lib/http/lambda-http.js';
import { type LocalSetup, startLocal } from '../support/local.js';

/** Every entry under `dir` with its permission bits. */
async function modes(dir: string): Promise<{ path: string; dir: boolean; mode: number }[]> {
  const out = [{ path: dir, dir: true, mode: (await stat(dir)).mode & 0o777 }];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(e.parentPath, e.name);
    out.push({ path, dir: e.isDirectory(), mode: (await stat(path)).mode & 0o777 });
  }
  return out;
}

describe('the data directory', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'reprise-data-'));
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it('a new data directory is created 0700 and every file in it is 0600 once the runtime is up', async () => {
    const dataDir = join(root, 'fresh');
    const local = await startLocal({ dataDir });
    try {
      const all = await modes(dataDir);
      expect(all.filter((e) => !e.dir).length).toBeGreaterThan(1); // LevelDB's files and the admin token
      for (const e of all)
        expect({ path: e.path, mode: e.mode.toString(8) }).toEqual({ path: e.path, mode: e.dir ? '700' : '600' });
    } finally {
      await local.close();
    }
  });

  it('an existing directory left 0755 with files 0644 is tightened before the embedded DynamoDB starts', async () => {
    const dataDir = join(root, 'loose');
    await mkdir(dataDir, { mode: 0o755 });
    await writeFile(join(dataDir, 'notes.txt'), 'left by an earlier version\n', { mode: 0o644 });
    await mkdir(join(dataDir, 'old'), { mode: 0o755 });
    await writeFile(join(dataDir, 'old', 'events.jsonl'), '{}\n', { mode: 0o644 });
    const local = await startLocal({ dataDir });
    try {
      for (const e of await modes(dataDir)) {
        expect({ path: e.path, mode: e.mode.toString(8) }).toEqual({ path: e.path, mode: e.dir ? '700' : '600' });
      }
    } finally {
      await local.close();
    }
  });
});

describe('the admin token file', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'reprise-token-'));
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it('a token file found group-readable is replaced by a new token, not kept: the old token is refused', async () => {
    const dataDir = join(root, 'exposed');
    await mkdir(dataDir, { mode: 0o700 });
    const old = 'o'.repeat(43);
    await writeFile(join(dataDir, 'admin-token'), `${old}\n`, { mode: 0o640 });
    const local = await startLocal({ dataDir });
    try {
      const now = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
      expect(now).not.toBe(old);
      expect(now).toBe(local.rt.adminToken);
      expect((await stat(join(dataDir, 'admin-token'))).mode & 0o777).toBe(0o600);
      const ask = (token: string) =>
        fetch(`${local.rt.adminUrl}/decisions`, { headers: { authorization: `Bearer ${token}` } });
      expect((await ask(old)).status).toBe(401);
      expect((await ask(now)).status).toBe(200);
      expect(local.log.lines.map((l) => l.message)).toContain(
        'admin token file was readable by others: replaced by a new token',
      );
    } finally {
      await local.close();
    }
  });
});

describe('an oversized webhook body', () => {
  let local: LocalSetup;
  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(async () => local?.close());

  /**
   * Streams a `total`-byte body in 64 KiB chunks over a raw socket, with or without a declared
   * length, reading the answer as it comes (as curl does); stops sending once one came, and
   * resolves with its status and how much had been sent by then.
   */
  function send(total: number, declared: boolean): Promise<{ status: number; sentBeforeAnswer: number }> {
    return new Promise((resolve, reject) => {
      const url = new URL(`${local.rt.url}/webhook`);
      const socket = connect(Number(url.port), url.hostname);
      let sent = 0;
      let answer = '';
      let answered = false;
      socket.on('data', (d: Buffer) => {
        answer += d.toString('latin1');
        const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
        if (m && !answered) {
          answered = true;
          resolve({ status: Number(m[1]), sentBeforeAnswer: sent });
          socket.destroy();
        }
      });
      // The server closing the connection on a body it refused is expected once it answered.
      socket.on('error', (err) => (answered ? undefined : reject(err)));
      const head = [
        'POST /webhook HTTP/1.1',
        `Host: ${url.host}`,
        'Content-Type: application/json',
        'X-GitHub-Event: workflow_run',
        declared ? `Content-Length: ${total}` : 'Transfer-Encoding: chunked',
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const framed = declared
        ? chunk
        : Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
      const pump = (): void => {
        while (!answered && !socket.destroyed && sent < total) {
          sent += chunk.length;
          if (!socket.write(framed)) {
            socket.once('drain', pump);
            return;
          }
        }
        if (!answered && !socket.destroyed) socket.end(declared ? '' : '0\r\n\r\n');
      };
      pump();
    });
  }

  it('30 MB with its length declared: 413 before the rest is read', async () => {
    const total = 30 * 1024 * 1024;
    const { status, sentBeforeAnswer } = await send(total, true);
    expect(status).toBe(413);
    expect(sentBeforeAnswer).toBeLessThan(total);
    const health = await fetch(`${local.rt.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('30 MB chunked, no length declared: 413 once past 6 MB, the rest never read', async () => {
    const total = 30 * 1024 * 1024;
    const { status, sentBeforeAnswer } = await send(total, false);
    expect(status).toBe(413);
    expect(sentBeforeAnswer).toBeLessThan(total);
    expect(sentBeforeAnswer).toBeGreaterThan(MAX_BODY_BYTES);
    expect(local.log.lines.filter((l) => l.level === 'error')).toEqual([]);
  });
});
