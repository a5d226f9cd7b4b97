import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PRECEDENCE } from '../../lib/classify/precedence.js';

const START = '<!-- precedence:start -->';
const END = '<!-- precedence:end -->';

/** The rows of the precedence table docs/design.md quotes: order, family, verdict and why, as written. */
export function precedenceInDocs(markdown: string): { order: number; family: string; verdict: string; why: string }[] {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`no ${START} … ${END} section`);
  return markdown
    .slice(start + START.length, end)
    .split('\n')
    .filter((line) => /^\|\s*\d+\s*\|/.test(line))
    .map((line) => {
      const [order, family, verdict, ...why] = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      const unquote = (c = '') => c.replace(/^`|`$/g, '');
      return { order: Number(order), family: unquote(family), verdict: unquote(verdict), why: why.join('|') };
    });
}

describe('docs/design.md quotes the precedence table of lib/classify/precedence.ts', () => {
  it('row for row: the same families in the same order, with the same verdict and reason', () => {
    const docs = precedenceInDocs(readFileSync('docs/design.md', 'utf8'));
    expect(docs).toEqual(
      PRECEDENCE.map((r, i) => ({ order: i + 1, family: r.family, verdict: r.verdict, why: r.why })),
    );
  });

  it('a table that differs from the code is caught', () => {
    const doc = readFileSync('docs/design.md', 'utf8').replace('| 1     | `veto`', '| 1     | `signal`');
    const rows = precedenceInDocs(doc);
    expect(rows[0]?.family).toBe('signal');
    expect(rows.map((r) => r.family)).not.toEqual(PRECEDENCE.map((r) => r.family));
  });
});
