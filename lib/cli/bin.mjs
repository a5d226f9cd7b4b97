#!/usr/bin/env node
// The `reprise` command: one bundled file (dist/cli/reprise.mjs) with the libraries it uses, so the
// package needs none of them installed. In a checkout it is built first when stale.
/* global URL */
import { existsSync } from 'node:fs';

if (existsSync(new URL('./ensure-build.mjs', import.meta.url))) {
  const { ensureBuilt } = await import('./ensure-build.mjs');
  ensureBuilt();
}
const { runProcess } = await import('../../dist/cli/reprise.mjs');
await runProcess();
