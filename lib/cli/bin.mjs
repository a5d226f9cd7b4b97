#!/usr/bin/env node
// The `reprise` command: the compiled CLI that `npm run build` writes to dist/.
/* global console, process */
let cli;
try {
  cli = await import('../../dist/lib/cli/main.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/lib/cli/main.js')) throw err;
  console.error('reprise: dist/ is missing; run "npm run build" in the repository first');
  process.exit(1);
}
await cli.runProcess();
