import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globMatch } from '../../lib/util/glob.js';

const reference = (glob: string, name: string): boolean =>
  new RegExp(
    `^${glob
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'is',
  ).test(name);

describe('globMatch walks the name once per star instead of backtracking a RegExp', () => {
  it('agrees with the regular-expression reading of the glob on any glob and name', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '*', '.', '(', 'A', '\n'), maxLength: 12 });
    fc.assert(
      fc.property(text, text, (glob, name) => globMatch(glob, name) === reference(glob, name.replace(/\*/g, 'x'))),
      {
        numRuns: 2000,
      },
    );
  });

  it('answers a glob of many stars over a long near-miss name (a RegExp of the same glob backtracks for seconds)', () => {
    const glob = `${'*a'.repeat(30)}*b`;
    expect(globMatch(glob, 'a'.repeat(5000))).toBe(false);
    expect(globMatch(glob, `${'a'.repeat(5000)}b`)).toBe(true);
  });
});
