import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MAP_START = '<!-- module-map:start -->';
const MAP_END = '<!-- module-map:end -->';

/** Each folder the map names (`- \`lib/x/\`: ...`), with the module file names its entry lists. */
export function foldersInMap(markdown: string): Map<string, string[]> {
  const start = markdown.indexOf(MAP_START);
  const end = markdown.indexOf(MAP_END);
  if (start < 0 || end < start) throw new Error(`no ${MAP_START} … ${MAP_END} section`);
  const folders = new Map<string, string[]>();
  for (const entry of markdown.slice(start, end).split(/\n(?=- `)/)) {
    const folder = /^- `(lib\/(?:[\w-]+\/)*)`/.exec(entry.trim())?.[1];
    if (!folder) continue;
    const modules = [...entry.matchAll(/`([\w.-]+\.ts)`/g)].map((m) => m[1]!);
    folders.set(folder, [...(folders.get(folder) ?? []), ...modules]);
  }
  return folders;
}

function foldersOnDisk(dir = 'lib'): Map<string, string[]> {
  const entries = readdirSync(dir, { withFileTypes: true });
  const here = entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => e.name);
  const folders = new Map<string, string[]>(here.length ? [[`${dir}/`, here]] : []);
  for (const sub of entries.filter((e) => e.isDirectory())) {
    for (const [folder, modules] of foldersOnDisk(join(dir, sub.name))) folders.set(folder, modules);
  }
  return folders;
}

const sorted = (m: Map<string, string[]>) =>
  Object.fromEntries([...m.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()]));

describe('docs/design.md: the module map matches lib/', () => {
  it('names every folder of lib/ and every module in it, and nothing that is not there', () => {
    expect(sorted(foldersInMap(readFileSync('docs/design.md', 'utf8')))).toEqual(sorted(foldersOnDisk()));
  });

  it('reads a folder entry over several lines, and only inside the markers', () => {
    const doc = [
      '- `lib/x/`: `outside.ts`',
      MAP_START,
      '- `lib/a/`: first `one.ts`,',
      '  then `two.ts`.',
      '- `lib/a/b/`: `three.ts`',
      MAP_END,
    ].join('\n');
    expect(sorted(foldersInMap(doc))).toEqual({ 'lib/a/': ['one.ts', 'two.ts'], 'lib/a/b/': ['three.ts'] });
  });
});
