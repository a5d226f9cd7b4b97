/**
 * The version follows the changelog: package.json carries the newest version the changelog names,
 * that version is what `npm pack` packs, and each breaking change it lists names its migration.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** The versions the changelog names (`## 0.2.0`), newest first; an `Unreleased` heading is not one. */
export const changelogVersions = (text: string): string[] =>
  [...text.matchAll(/^## (\d+\.\d+\.\d+)\b/gm)].map((m) => m[1]!);

/** The text of one version's section, up to the next version's heading. */
export function versionSection(text: string, version: string): string {
  const start = text.indexOf(`\n## ${version}`);
  const next = text.slice(start + 1).search(/\n## \d/);
  return next < 0 ? text.slice(start) : text.slice(start, start + 1 + next);
}

/** The entries of a section's "Breaking changes" list that name no migration. */
export function breakingWithoutMigration(section: string): string[] {
  const heading = section.search(/^### Breaking changes/m);
  if (heading < 0) return [];
  const body = section.slice(heading).split(/\n(?=### )/)[0]!;
  return body
    .split(/\n(?=- )/)
    .filter((e) => e.startsWith('- '))
    .filter((e) => !/Migration:/.test(e))
    .map((e) => e.split('\n')[0]!);
}

describe('the version follows the changelog', () => {
  const [newest, ...older] = changelogVersions(changelog);

  it('package.json carries the newest version the changelog names, and the next release is not 0.1.0', () => {
    expect(manifest.version).toBe(newest);
    expect(older).toContain('0.1.0');
    expect(newest).not.toBe('0.1.0');
  });

  it('each breaking change of the newest version names its migration', () => {
    const section = versionSection(changelog, newest!);
    expect(section).toMatch(/^### Breaking changes/m);
    expect(breakingWithoutMigration(section)).toEqual([]);
  });

  it('npm pack --dry-run packs the new version', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, npm_config_loglevel: 'silent' },
    });
    const [packed] = JSON.parse(out) as { version: string; filename: string }[];
    expect(packed).toMatchObject({ version: newest, filename: `${manifest.name}-${newest}.tgz` });
  }, 60_000);

  it('the checks fail on a changelog that does not hold (a control)', () => {
    const text = [
      '## Unreleased',
      '',
      '## 1.3.0',
      '',
      '### Breaking changes',
      '',
      '- **A prop went away.** Migration: use the other one.',
      '- **A default changed.**',
      '  It now does more.',
      '',
      '### Changes',
      '',
      '- Not breaking.',
      '',
      '## 1.2.0',
      '',
      '- Old.',
    ].join('\n');
    expect(changelogVersions(text)).toEqual(['1.3.0', '1.2.0']);
    expect(breakingWithoutMigration(versionSection(text, '1.3.0'))).toEqual(['- **A default changed.**']);
  });
});
