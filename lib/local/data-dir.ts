import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes the local runtime's data directory the operator's alone: created (or tightened) to
 * 0700, every directory below it 0700 and every file 0600. The ledger in it holds every
 * decision, and the admin token beside it opens the operator routes.
 */
export async function secureDataDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await tighten(dir);
}

async function tighten(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await tighten(path);
    else if (entry.isFile()) await chmod(path, 0o600);
  }
}
