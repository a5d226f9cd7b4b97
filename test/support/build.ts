/**
 * vitest globalSetup: the compiled build (`npm run build`) that `npm start`, the `reprise` command
 * and the packed package run, rebuilt before the suite whenever a source is newer than it.
 */
import { ensureBuilt } from '../../lib/cli/ensure-build.mjs';

export default function setup(): void {
  ensureBuilt();
}
