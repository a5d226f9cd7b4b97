#!/usr/bin/env node
// Runs `npm run build` when a source is newer than the last build (dist/.build-stamp), so
// `npm start`, the `reprise` command and the test suite never run stale JavaScript in a checkout.
/* global process, URL */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCES = ['lib', 'infra', 'functions', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), st.mtimeMs);
}

/** True when dist/ holds a build at least as new as every source. */
export function buildIsFresh() {
  const stamp = join(ROOT, 'dist/.build-stamp');
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return SOURCES.every((s) => newest(join(ROOT, s)) <= built);
}

export function ensureBuilt() {
  if (buildIsFresh()) return;
  // Progress goes to stderr: a command's stdout stays its own.
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensureBuilt();
