import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
];

describe("the README's description of npm run demo", () => {
  const demo = read('test/demo/demo.ts');
  const scenarios = demo.slice(demo.indexOf('const SCENARIOS'), demo.indexOf('];', demo.indexOf('const SCENARIOS')));
  const titles = [...scenarios.matchAll(/^\s+title: '([^']+)'/gm)].map((m) => m[1]!);
  const readme = read('README.md');

  it('counts the runs the demo posts, wherever it says how many', () => {
    expect(titles.length).toBeGreaterThan(0);
    const counts = [...readme.matchAll(/(\w+) typical runs/g)].map((m) => m[1]);
    expect(counts.length).toBeGreaterThanOrEqual(2);
    for (const c of counts) expect(c).toBe(WORDS[titles.length]);
  });

  it('names the merge-queue run among them', () => {
    expect(titles).toContain('a merge-queue run lost its runner');
    expect(readme).toMatch(/a merge-queue\s+run that lost its runner/);
  });
});
