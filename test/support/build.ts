/**
 * The compiled build (`npm run build`) that `npm start`, the `reprise` command and the packed
 * package run: rebuilt before the suite whenever a source is newer than the last build.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STAMP = join(ROOT, 'dist/.build-stamp');
const SOURCES = ['lib', 'infra', 'functions', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

function newest(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), st.mtimeMs);
}

/** True when dist/ holds a build at least as new as every source. */
export function buildIsFresh(): boolean {
  if (!existsSync(STAMP)) return false;
  const built = statSync(STAMP).mtimeMs;
  return SOURCES.every((s) => newest(join(ROOT, s)) <= built);
}

export function ensureBuilt(): void {
  if (buildIsFresh()) return;
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

/** vitest globalSetup. */
export default function setup(): void {
  ensureBuilt();
}
