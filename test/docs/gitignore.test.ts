import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** True when git would leave `path` out of `git add .` (the index is not consulted). */
const ignored = (path: string): boolean => {
  try {
    execFileSync('git', ['check-ignore', '--quiet', '--no-index', path], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch (err) {
    if ((err as { status?: number }).status === 1) return false;
    throw err;
  }
};

describe('.gitignore', () => {
  it.each([
    ['.env', 'the credentials `reprise setup --dotenv .env` writes'],
    ['.env.staging', 'another dotenv file'],
    ['reprise.private-key.pem', "the README's PRIVATE_KEY_PATH"],
    ['keys/app.pem', 'any private key file'],
    ['.reprise/admin-token', "the local runtime's data dir"],
    ['.reprise/ledger/CURRENT', "the local runtime's data dir"],
  ])('covers %s (%s)', (path) => {
    expect(ignored(path)).toBe(true);
  });

  it('still tracks what the repository needs', () => {
    for (const path of ['README.md', 'lib/config/secrets.ts', 'docs/deploy.md']) expect(ignored(path)).toBe(false);
  });
});
