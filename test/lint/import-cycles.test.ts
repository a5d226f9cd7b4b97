import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cyclesIn, importCycles, importsOf } from './import-cycles.js';

const scratch = mkdtempSync(join(tmpdir(), 'reprise-cycles-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(scratch, 't-'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

describe('lint: import cycles, type imports included', () => {
  it('a cycle made only of `import type` is a cycle', () => {
    const root = tree({
      'lib/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };",
      'lib/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };",
    });
    expect(importCycles(root)).toEqual([['lib/a.ts', 'lib/b.ts']]);
  });

  it('a re-export and a dynamic import close a cycle as an import does', () => {
    const root = tree({
      'lib/a.ts': "export { b } from './b.js';",
      'lib/b.ts': "export const b = () => import('./c.js');",
      'lib/c.ts': "export * from './a.js';",
    });
    expect(importCycles(root)).toEqual([['lib/a.ts', 'lib/b.ts', 'lib/c.ts']]);
  });

  it('a chain that points one way, and imports of packages, are not cycles', () => {
    const root = tree({
      'lib/a.ts': "import type { B } from './b.js';\nimport { x } from 'yaml';\nexport const a = (b: B) => [b, x];",
      'lib/b.ts': "import { c } from '../functions/c.js';\nexport type B = typeof c;",
      'functions/c.ts': 'export const c = 1;',
    });
    expect(importCycles(root)).toEqual([]);
  });

  it('lib/, functions/ and infra/ hold no import cycle, type imports included', () => {
    expect(importCycles()).toEqual([]);
  });

  it('reads a module that imports itself as a cycle of one', () => {
    expect(cyclesIn(new Map([['x', ['x']]]))).toEqual([['x']]);
    expect(importsOf('/r/lib/a.ts', "import './missing.js';")).toEqual([]);
  });
});
