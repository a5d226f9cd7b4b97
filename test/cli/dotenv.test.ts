import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkoutDotenv, isOwnCheckout, ownPackageDir, readDotenv, takeDotenv } from '../../lib/cli/dotenv.js';
import { CliError, UsageError } from '../../lib/cli/io.js';
import { removeSandboxes, sandbox } from '../docs/support.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('dotenv: --dotenv taken out of the arguments', () => {
  it('--dotenv FILE and --dotenv=FILE, wherever they stand; the rest kept in order', () => {
    expect(takeDotenv(['status', '--dotenv', 'a.env', '--json'])).toEqual({
      args: ['status', '--json'],
      file: 'a.env',
    });
    expect(takeDotenv(['--dotenv=b.env', 'explain', 'acme/web#1'])).toEqual({
      args: ['explain', 'acme/web#1'],
      file: 'b.env',
    });
    expect(takeDotenv(['status'])).toEqual({ args: ['status'] });
  });

  it('after -- nothing is taken', () => {
    expect(takeDotenv(['start', '--', '--dotenv', 'x'])).toEqual({ args: ['start', '--', '--dotenv', 'x'] });
  });

  it('no file, or another option in its place, is a usage error', () => {
    for (const argv of [['--dotenv'], ['--dotenv', '--json'], ['--dotenv=']]) {
      expect(() => takeDotenv(argv)).toThrow(UsageError);
    }
    expect(() => takeDotenv(['--dotenv'])).toThrow('--dotenv: expected the file to read, e.g. --dotenv .env');
  });
});

describe('dotenv: which file is read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reprise-dotenv-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    removeSandboxes();
  });

  it('a named file is parsed as Node parses a .env: quotes, escaped newlines in double quotes, comments', () => {
    const file = join(dir, 'a.env');
    writeFileSync(file, '# a comment\nAPP_ID=12\nPRIVATE_KEY="line1\\nline2"\nEMPTY=\n');
    expect(readDotenv(file)).toEqual({ APP_ID: '12', PRIVATE_KEY: 'line1\nline2', EMPTY: '' });
  });

  it('a named file that cannot be read is an error naming its full path and why', () => {
    expect(() => readDotenv(join(dir, 'missing.env'))).toThrow(CliError);
    expect(() => readDotenv(join(dir, 'missing.env'))).toThrow(
      `--dotenv: cannot read ${join(dir, 'missing.env')}: ENOENT`,
    );
  });

  it("reprise's own checkout is the real directory of the running package: a link to that directory is it, a subdirectory is not", () => {
    expect(ownPackageDir()).toBe(realpathSync(ROOT));
    expect(isOwnCheckout(ROOT)).toBe(true);
    const link = join(dir, 'link');
    symlinkSync(ROOT, link);
    expect(isOwnCheckout(link)).toBe(true);
    expect(isOwnCheckout(join(ROOT, 'lib'))).toBe(false);
  });

  it('a directory whose package.json is a link to the running package’s own file is not the checkout, and its .env is not read', () => {
    const clone = join(dir, 'clone');
    mkdirSync(clone);
    symlinkSync(join(ROOT, 'package.json'), join(clone, 'package.json'));
    writeFileSync(join(clone, '.env'), 'GITHUB_API_URL=https://attacker.example\n');
    expect(isOwnCheckout(clone)).toBe(false);
    expect(checkoutDotenv(clone)).toBeUndefined();
    // Every entry linked (package.json, lib, dist …): still another directory.
    expect(isOwnCheckout(sandbox())).toBe(false);
  });

  it('a directory whose package.json calls itself reprise is not the checkout, and its .env is not read', () => {
    const other = join(dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'package.json'), '{"name":"reprise","version":"0.1.0"}\n');
    writeFileSync(join(other, '.env'), 'GITHUB_API_URL=http://example.invalid\n');
    expect(isOwnCheckout(other)).toBe(false);
    expect(checkoutDotenv(other)).toBeUndefined();
    expect(isOwnCheckout(join(dir, 'nowhere'))).toBe(false);
  });

  it("the checkout's .env is read when it has one, and only then", () => {
    const own = join(dir, 'own');
    mkdirSync(own);
    expect(isOwnCheckout(own, own)).toBe(true);
    expect(checkoutDotenv(own, own)).toBeUndefined();
    writeFileSync(join(own, '.env'), 'APP_ID=1\n');
    expect(checkoutDotenv(own, own)).toBe(join(own, '.env'));
    expect(checkoutDotenv(own, ROOT)).toBeUndefined();
  });
});
