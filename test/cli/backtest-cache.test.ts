import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileCache } from '../../lib/cli/backtest-cache.js';
import { CliError } from '../../lib/cli/io.js';
import { attempt } from '../backtest/support.js';

const judgement = { decision: 'dry_run' as const, reason: 'r', wouldRerun: true, jobs: [], evidenceGone: false };

describe('backtest-cache: what a backtest read, kept in one file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reprise-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('kept attempts and judgements are read back by a new cache on the same file', async () => {
    const file = join(dir, 'a.json');
    let now = 10_000;
    const cache = new FileCache(file, () => now);
    expect(cache.size).toEqual({ attempts: 0, judgements: 0 });
    const a = attempt(1, '2026-03-01T10:00:00Z', '2026-03-01T10:09:00Z');
    await cache.keep('1:2:1', { attempt: a });
    await cache.keep('1:2:1', { judgement });
    now += 10;
    cache.flush();
    const again = new FileCache(file);
    expect(again.attempt('1:2:1')).toEqual(a);
    expect(again.judgement('1:2:1')).toEqual(judgement);
    expect(again.size).toEqual({ attempts: 1, judgements: 1 });
    expect(again.attempt('other')).toBeUndefined();
  });

  it('written at most once a second as it goes, through a temporary file, and on flush', async () => {
    const file = join(dir, 'b.json');
    let now = 5_000;
    const cache = new FileCache(file, () => now);
    await cache.keep('k1', { judgement });
    expect(JSON.parse(readFileSync(file, 'utf8')).judgements).toHaveProperty('k1');
    now += 500;
    await cache.keep('k2', { judgement });
    expect(JSON.parse(readFileSync(file, 'utf8')).judgements).not.toHaveProperty('k2');
    now += 500;
    await cache.keep('k3', { judgement });
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).judgements)).toEqual(['k1', 'k2', 'k3']);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  it('a file that is not a cache of this version is refused naming it; nothing kept, nothing written', () => {
    const junk = join(dir, 'junk.json');
    writeFileSync(junk, 'not json');
    expect(() => new FileCache(junk)).toThrow(CliError);
    expect(() => new FileCache(junk)).toThrow(`--cache ${junk}: not a backtest cache (`);
    const old = join(dir, 'old.json');
    writeFileSync(old, JSON.stringify({ version: 0, attempts: {}, judgements: {} }));
    expect(() => new FileCache(old)).toThrow(`--cache ${old}: not a backtest cache of this version; name another file`);
    const fresh = join(dir, 'fresh.json');
    new FileCache(fresh).flush();
    expect(existsSync(fresh)).toBe(false);
  });
});
