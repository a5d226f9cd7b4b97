#!/usr/bin/env node
// The `reprise` command: runs the TypeScript CLI through tsx, as `npm start` does.
import { register } from 'tsx/esm/api';

register();
const { runProcess } = await import('./main.ts');
await runProcess();
