/**
 * The docs cite tests as proof: a test file a page names must exist where the page says, so a
 * suite moved or renamed takes its citations with it. Full paths (`test/acceptance/wave.test.ts`)
 * and paths under test/ (`acceptance/security.test.ts`, as docs/security.md writes them) alike.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** A test file in code: `test/x/y.test.ts` or `x/y.test.ts`, no glob. */
const CITED = /`((?:test\/)?[a-z0-9-]+\/[A-Za-z0-9_./-]+\.test\.ts)/g;

const citations = (page: string): string[] =>
  [...readFileSync(join(ROOT, page), 'utf8').matchAll(CITED)].map((m) => m[1]!);

describe('the test files the docs cite', () => {
  it('the pages cite test files at all (the pattern still matches how they write them)', () => {
    expect(PAGES.flatMap(citations).length).toBeGreaterThan(50);
  });

  it.each(PAGES)('%s: every test file it names exists', (page) => {
    const missing = citations(page).filter(
      (path) => !existsSync(join(ROOT, path.startsWith('test/') ? path : `test/${path}`)),
    );
    expect(missing).toEqual([]);
  });
});
