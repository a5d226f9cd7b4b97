// Rewrites the configuration tables of the docs from the settings schema: `npm run docs:settings`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TableName, withTable } from '../../lib/config/settings-docs.js';

export const SETTINGS_DOCS: ReadonlyArray<readonly [string, TableName]> = [
  ['README.md', 'environment'],
  ['docs/deploy.md', 'context'],
  ['docs/configuration.md', 'repository'],
];

const root = join(import.meta.dirname, '..', '..');
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  for (const [file, table] of SETTINGS_DOCS) {
    const path = join(root, file);
    writeFileSync(path, withTable(readFileSync(path, 'utf8'), table));
  }
}
