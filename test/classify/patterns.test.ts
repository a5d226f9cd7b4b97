import { describe, expect, it } from 'vitest';
import {
  CANCELLATION_ECHO,
  compileExtraPatterns,
  EXTRA_PATTERN_LIMITS,
  FAIL_FAST,
  matchLoss,
  matchVeto,
  RUNNER_LOSS_PATTERNS,
} from '../../lib/classify/patterns.js';
import { PatternError } from '../../lib/errors.js';
import { errorLine, TEXT } from '../support/evidence.js';
import { LOSS_TEXTS } from '../core/fixtures.js';

/** Every variant of a text a matcher must not care about: GitHub's wording, all lower and all upper case. */
const caseVariants = (text: string): [string, string][] => [
  ['as GitHub writes it', text],
  ['lower case', text.toLowerCase()],
  ['upper case', text.toUpperCase()],
];

describe("GitHub's runner-loss texts match a built-in pattern, case-insensitively", () => {
  describe.each(LOSS_TEXTS)('%s', (_label, text, pattern) => {
    it.each(caseVariants(text))('matches %s', (_variant, t) => {
      expect(matchLoss(t, [])).toBe(pattern);
    });

    it('matches as a log line with timestamp and ##[error] prefix', () => {
      expect(matchLoss(errorLine(text), [])).toBe(pattern);
    });

    it('is no veto', () => {
      expect(matchVeto(text)).toBeUndefined();
    });
  });

  it.each([
    ['a runner name with dots and dashes', 'ip-10-0-1-23.eu-west-1.compute.internal'],
    ['a Kubernetes pod name', 'arc-runner-set-7x9kq-runner-2hq5d'],
    ['a runner name with spaces', 'GitHub Actions 12'],
  ])('a named self-hosted runner matches with %s', (_label, name) => {
    expect(matchLoss(TEXT.selfHostedNamed(name), [])).toBe('self-hosted-lost');
  });

  it('a named hosted runner matches the hosted pattern', () => {
    expect(matchLoss(TEXT.hostedNamed('GitHub Actions 2'), [])).toBe('hosted-lost');
  });

  it('patterns are anchored on the stable wording: a truncated message still matches', () => {
    const firstSentence = TEXT.selfHostedNamed('r1').split('.')[0] ?? '';
    expect(matchLoss(firstSentence, [])).toBe('self-hosted-lost');
  });

  it('the built-in table holds the self-hosted, hosted and shutdown patterns', () => {
    expect(RUNNER_LOSS_PATTERNS.map((p) => p.name)).toEqual(['self-hosted-lost', 'hosted-lost', 'shutdown-signal']);
  });
});

describe('texts that never count as infrastructure are no loss', () => {
  it.each([
    ['the cancellation echo alone', TEXT.echo],
    ...[0, 1, 2, 127, 137, 143, 255].map((c) => [`exit code ${c}`, TEXT.exitCode(c)] as [string, string]),
    ['a job timeout', TEXT.timeoutJob],
    ['a runner timeout', TEXT.timeoutRunner],
    ['a person cancelling the run', TEXT.person],
    ['concurrency superseding the run', TEXT.concurrency],
    ['a fail-fast cancellation', TEXT.failFast],
    ['some other thing losing communication', 'The database lost communication with the server.'],
    ['an empty text', ''],
  ])('%s', (_label, text) => {
    expect(matchLoss(text, [])).toBeUndefined();
  });
});

describe('vetoes: a person, concurrency and timeouts', () => {
  it.each([
    ['a person cancelled the run', TEXT.person, 'person'],
    ['a person with another login', TEXT.canceledBy('some-bot[bot]'), 'person'],
    ['concurrency superseded the run', TEXT.concurrency, 'concurrency'],
    ['the job exceeded its maximum execution time', TEXT.timeoutJob, 'timeout'],
    ['the job on a runner exceeded its maximum execution time', TEXT.timeoutRunner, 'timeout'],
  ] as const)('%s → %s', (_label, text, kind) => {
    for (const [, t] of caseVariants(text)) expect(matchVeto(t)).toBe(kind);
  });

  it.each([
    ['a plain exit code', TEXT.exitCode(1)],
    ['the cancellation echo', TEXT.echo],
    ['a fail-fast cancellation', TEXT.failFast],
    ...LOSS_TEXTS.map(([label, text]) => [label, text] as [string, string]),
  ])('%s is no veto', (_label, text) => {
    expect(matchVeto(text)).toBeUndefined();
  });
});

describe('the cancellation echo and fail-fast texts', () => {
  it.each([TEXT.echo, TEXT.echo.toLowerCase(), `  ${TEXT.echo.slice(0, -1)}  `, TEXT.echo.toUpperCase()])(
    'the echo alone is recognised: %j',
    (text) => {
      expect(CANCELLATION_ECHO.test(text)).toBe(true);
    },
  );

  it.each([TEXT.shutdown, `${TEXT.echo} ${TEXT.shutdown}`, TEXT.person])('other texts are not the echo: %j', (text) => {
    expect(CANCELLATION_ECHO.test(text)).toBe(false);
  });

  it('GitHub’s fail-fast sibling text is recognised', () => {
    expect(FAIL_FAST.test(TEXT.failFast)).toBe(true);
    expect(FAIL_FAST.test(TEXT.echo)).toBe(false);
  });
});

describe('extra patterns (configuration)', () => {
  it('an extra pattern matches after the built-in ones and names its source', () => {
    const extra = compileExtraPatterns(['pod .* evicted']);
    expect(matchLoss('Runner pod arc-7x9 was evicted from node ip-10-0-1-2', extra)).toBe('extra:pod .* evicted');
    expect(matchLoss(TEXT.shutdown, extra)).toBe('shutdown-signal');
  });

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
