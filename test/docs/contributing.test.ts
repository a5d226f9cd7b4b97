/**
 * CONTRIBUTING.md's recipes name the files to touch, in order, and the test that proves each
 * step: a path it names must exist, so a file moved or renamed takes the recipe with it (the
 * failure names the path). A path with a `<placeholder>` in it is a file the reader creates.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const PAGE = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');

const RECIPES = ['An evidence family', 'A signal source', 'A queue backend', 'A function', 'A setting'];

/** Each `## ` section's title and body. */
const sections = (text: string): Map<string, string> =>
  new Map(
    text
      .split(/^## /m)
      .slice(1)
      .map((s) => [s.slice(0, s.indexOf('\n')).trim(), s.slice(s.indexOf('\n') + 1)]),
  );

/** A repository path in code: no spaces, a folder in it or a file extension, no placeholder. */
export function namedPaths(text: string): string[] {
  const inCode = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  const paths = inCode.filter(
    (t) => !/[\s<>*{}()]/.test(t) && !t.startsWith('-') && (/^[\w.-]+\//.test(t) || /\.(ts|mjs|js|json|md)$/.test(t)),
  );
  return [...new Set(paths)];
}

const recipeOf = (title: string): string => {
  const found = [...sections(PAGE)].find(([heading]) => heading.startsWith(title));
  if (!found) throw new Error(`CONTRIBUTING.md has no recipe "${title}"`);
  return found[1];
};

describe('CONTRIBUTING.md: the recipes', () => {
  it('reads paths the way the recipes write them, and leaves commands, symbols and placeholders alone', () => {
    expect(
      namedPaths(
        '`lib/model.ts` `npx tsc -p tsconfig.json` `EvidenceSource` `lib/classify/<family>.ts` `eslint.config.js`',
      ),
    ).toEqual(['lib/model.ts', 'eslint.config.js']);
  });

  it('every file and folder the page names exists (a failure names the path that moved)', () => {
    const paths = namedPaths(PAGE);
    expect(paths.length).toBeGreaterThan(60);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it.each(RECIPES)('%s: a numbered list of steps, each file in order, with a test that proves it', (title) => {
    const recipe = recipeOf(title);
    const steps = recipe.match(/^\d+\. /gm) ?? [];
    expect(steps.length).toBeGreaterThanOrEqual(5);
    expect(steps.map((s) => Number.parseInt(s, 10))).toEqual(steps.map((_, i) => i + 1));
    expect(namedPaths(recipe).filter((p) => p.startsWith('lib/') || p.startsWith('infra/')).length).toBeGreaterThan(2);
    expect(recipe).toMatch(/Proof: /);
    expect(namedPaths(recipe).some((p) => /^test\/.+\.test\.ts$/.test(p))).toBe(true);
  });

  it('the README points to it', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toMatch(/\(CONTRIBUTING\.md\)/);
  });
});
