import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** A module past this many lines holds more than one job: split it by job. */
const MAX_LINES = 300;

function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modulesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('modules stay small', () => {
  it(`no module in lib/ or infra/ is past ${MAX_LINES} lines, with no exemption`, () => {
    const long = ['lib', 'infra']
      .flatMap(modulesUnder)
      .map((path) => ({ path, lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ path, lines }) => `${path}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
