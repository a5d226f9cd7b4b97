import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = join(import.meta.dirname, '../../dist/lib/local/main.js');
const dir = mkdtempSync(join(tmpdir(), 'reprise-unconfigured-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm start`'s program in a directory without .env, with nothing of this machine's environment. */
async function start(env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, [MAIN], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } });
    return { code: 0, stderr: '' };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
}

describe('npm start without configuration', () => {
  it('lists every missing setting at once and names reprise setup --dotenv', async () => {
    const r = await start();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('reprise: the local runtime is not configured; in the environment (no .env here):');
    expect(r.stderr).toContain('  - WEBHOOK_SECRET is required');
    expect(r.stderr).toContain('  - GitHub credentials missing: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH)');
    expect(r.stderr).toContain('npx reprise setup --dotenv .env --webhook-url https://<tunnel>/webhook');
  });

  it('lists bad values beside the missing ones, each naming its variable', async () => {
    const r = await start({ GITHUB_TOKEN: 'ghp_x', MAX_ATTEMPTS: 'lots', PORT: 'eighty' });
    expect(r.code).toBe(1);
    const listed = r.stderr.split('\n').filter((l) => l.startsWith('  - '));
    expect(listed).toHaveLength(3);
    expect(listed[0]).toBe('  - WEBHOOK_SECRET is required');
    expect(listed.some((l) => l.includes('MAX_ATTEMPTS') && l.includes('"lots"'))).toBe(true);
    expect(listed.some((l) => l.includes('PORT') && l.includes('"eighty"'))).toBe(true);
  });
});
