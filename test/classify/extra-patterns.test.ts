import { describe, expect, it } from 'vitest';
import { compileExtraPatterns, EXTRA_PATTERN_LIMITS } from '../../lib/classify/extra-patterns.js';
import { PatternError } from '../../lib/errors.js';

describe('extra patterns (configuration)', () => {
  it.each([
    ['undefined', undefined, []],
    ['an empty text', '', []],
    ['comments and blank lines only', '# nothing here\n\n   \n  # indented comment\n', []],
    [
      'a block of lines, comments and blanks skipped',
      '# node loss\nnode .* drained\n\n  pod evicted  \n',
      ['node .* drained', 'pod evicted'],
    ],
    ['CRLF line ends', 'node drained\r\npod evicted\r\n', ['node drained', 'pod evicted']],
    [
      'a list of strings, comments and blanks skipped',
      ['# c', '', 'node drained', '  pod evicted '],
      ['node drained', 'pod evicted'],
    ],
  ] as const)('%s', (_label, input, sources) => {
    expect(compileExtraPatterns(input as string | readonly string[] | undefined).map((r) => r.source)).toEqual(sources);
  });

  it('every extra pattern is case-insensitive', () => {
    const [re] = compileExtraPatterns('Node Drained');
    expect(re?.test('NODE DRAINED by karpenter')).toBe(true);
    expect(re?.test('node drained by karpenter')).toBe(true);
  });

  it.each([
    ['an unterminated group', '# comment\n\nnode (drained\n', 3, 'node (drained'],
    ['a dangling quantifier', 'ok\n*oops', 2, '*oops'],
    ['a bad class in a list', ['fine', '[z-a]'], 2, '[z-a]'],
  ] as const)('invalid extra pattern: %s throws a PatternError naming the line', (_label, input, line, source) => {
    let caught: unknown;
    try {
      compileExtraPatterns(input as string | readonly string[]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PatternError);
    const e = caught as PatternError;
    expect(e.name).toBe('PatternError');
    expect(e.line).toBe(line);
    expect(e.source).toBe(source);
    expect(e.message).toContain(`extra_patterns line ${line}`);
    expect(e.message).toContain(source);
  });
});

describe('repository patterns run on a linear-time engine, within limits', () => {
  const refusal = (input: string | readonly string[]): PatternError => {
    try {
      compileExtraPatterns(input);
    } catch (err) {
      if (err instanceof PatternError) return err;
      throw err;
    }
    throw new Error('expected a PatternError');
  };

  it.each([
    ['a backreference', '(a+)+\\1', /backreferences and lookaround are not supported/],
    ['a lookahead', 'runner(?= lost)', /backreferences and lookaround are not supported/],
    ['a negative lookbehind', '(?<!not )evicted', /invalid regular expression/],
    ['a counted repeat past RE2’s limit', 'a{1001}', /invalid repeat count/],
    ['a pattern past the length limit', `node ${'x'.repeat(EXTRA_PATTERN_LIMITS.length)}`, /characters, more than 200/],
    ['a pattern whose program is too large', '\\w{100}\\w{100}\\w{100}\\w{100}\\w{100}', /instructions, more than 400/],
  ])('%s is a configuration error naming the line', (_label, pattern, why) => {
    const e = refusal(['ok', pattern]);
    expect(e.line).toBe(2);
    expect(e.message).toMatch(/^extra_patterns line 2: /);
    expect(e.message).toMatch(why);
  });

  it('more patterns than the limit is a configuration error naming the first one past it', () => {
    const lines = Array.from({ length: EXTRA_PATTERN_LIMITS.count + 1 }, (_, i) => `node ${i} drained`);
    const e = refusal(['# comment', ...lines]);
    expect(e.line).toBe(EXTRA_PATTERN_LIMITS.count + 2);
    expect(e.message).toMatch(/more than 20 patterns/);
  });

  it.each([
    ['nested quantifiers', '(a+)+$', 'a'.repeat(100_000) + '!'],
    ['overlapping alternation', '(a|aa)+b', 'a'.repeat(100_000)],
    ['stacked wildcards', '(.*a){12}x', 'a'.repeat(100_000)],
  ])('the classic catastrophic shape %s is accepted and cannot stall: it runs on RE2', (_label, pattern, text) => {
    const [re] = compileExtraPatterns([pattern]);
    const t = process.cpuUsage();
    expect(re?.test(text)).toBe(false);
    // A backtracking engine needs years here; a generous ceiling on this process's own CPU time
    // (a busy neighbour adds none) still tells the two apart.
    const { user, system } = process.cpuUsage(t);
    expect((user + system) / 1000).toBeLessThan(2_000);
  });
});
