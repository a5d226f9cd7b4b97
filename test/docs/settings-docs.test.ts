import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectedRows, tableIn } from '../../lib/config/settings-docs.js';
import { contextDefaultText, defaultText, SETTING_NAMES, settingOf } from '../../lib/config/settings-schema.js';
import { PROJECT_ROOT } from '../../infra/functions/handlers.js';
import { SETTINGS_DOCS } from './write-settings-docs.js';

const read = (file: string) => readFileSync(join(PROJECT_ROOT, file), 'utf8');
const unquote = (c: string) => c.replace(/^`|`$/g, '');

describe('the configuration tables of the docs match the settings schema', () => {
  it.each(SETTINGS_DOCS)('%s holds the %s table the schema renders (npm run docs:settings)', (file, table) => {
    const rows = tableIn(read(file), table);
    expect(rows, `${file} has no settings:${table} markers`).toBeDefined();
    expect(rows).toEqual(expectedRows(table));
  });

  it('the README lists every environment variable with the default the schema gives it', () => {
    const rows = tableIn(read('README.md'), 'environment') ?? [];
    for (const s of SETTING_NAMES.map(settingOf).filter((x) => x.env && (x.local || x.readBy.length > 0))) {
      const row = rows.find((r) => unquote(r[0] ?? '') === s.env);
      expect(row, `README.md misses ${s.env}`).toBeDefined();
      expect(unquote(row?.[2] ?? ''), `README.md default of ${s.env}`).toBe(defaultText(s));
    }
  });

  it('docs/deploy.md lists every context key with the default the schema gives it', () => {
    const rows = tableIn(read('docs/deploy.md'), 'context') ?? [];
    for (const s of SETTING_NAMES.map(settingOf).filter((x) => x.context)) {
      const row = rows.find((r) => unquote(r[0] ?? '') === s.context);
      expect(row, `docs/deploy.md misses ${s.context}`).toBeDefined();
      expect(unquote(row?.[1] ?? ''), `docs/deploy.md default of ${s.context}`).toBe(contextDefaultText(s));
    }
  });

  it('docs/configuration.md lists every repository key with the default the schema gives it', () => {
    const rows = tableIn(read('docs/configuration.md'), 'repository') ?? [];
    for (const s of SETTING_NAMES.map(settingOf).filter((x) => x.repoKey)) {
      const row = rows.find((r) => unquote(r[0] ?? '') === s.repoKey);
      expect(row, `docs/configuration.md misses ${s.repoKey}`).toBeDefined();
      expect(unquote(row?.[2] ?? ''), `docs/configuration.md default of ${s.repoKey}`).toBe(defaultText(s));
    }
  });
});
