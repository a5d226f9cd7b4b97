/** The data directory is the operator's alone: 0700 directories and 0600 files, however it was left. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secureDataDir } from '../../lib/local/data-dir.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('secureDataDir', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'reprise-data-dir-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates a missing directory, and its parents, 0700', async () => {
    const dir = join(root, 'a', 'b');
    await secureDataDir(dir);
    expect(mode(dir)).toBe(0o700);
  });

  it('tightens a directory left open: every directory below it 0700, every file 0600', async () => {
    const dir = join(root, 'data');
    mkdirSync(join(dir, 'ledger', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'admin-token'), 'x');
    writeFileSync(join(dir, 'ledger', 'deep', '000001.ldb'), 'x');
    for (const d of [dir, join(dir, 'ledger'), join(dir, 'ledger', 'deep')]) chmodSync(d, 0o755);
    chmodSync(join(dir, 'admin-token'), 0o644);
    chmodSync(join(dir, 'ledger', 'deep', '000001.ldb'), 0o666);

    await secureDataDir(dir);
    expect([dir, join(dir, 'ledger'), join(dir, 'ledger', 'deep')].map(mode)).toEqual([0o700, 0o700, 0o700]);
    expect([join(dir, 'admin-token'), join(dir, 'ledger', 'deep', '000001.ldb')].map(mode)).toEqual([0o600, 0o600]);
  });

  it('does not follow a symbolic link out of the directory', async () => {
    const dir = join(root, 'data');
    const outside = join(root, 'outside.txt');
    mkdirSync(dir);
    writeFileSync(outside, 'x');
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(dir, 'link'));
    await secureDataDir(dir);
    expect(mode(outside)).toBe(0o644);
  });
});
