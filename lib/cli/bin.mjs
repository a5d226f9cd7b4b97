#!/usr/bin/env node
// The `reprise` command: the compiled CLI in dist/. In a checkout it is built first when stale;
// the published package ships it built.
/* global URL */
import { existsSync } from 'node:fs';

if (existsSync(new URL('./ensure-build.mjs', import.meta.url))) {
  const { ensureBuilt } = await import('./ensure-build.mjs');
  ensureBuilt();
}
const { runProcess } = await import('../../dist/lib/cli/main.js');
await runProcess();
