import { describe, expect, it } from 'vitest';
import {
  CANCELLATION_ECHO,
  compileExtraPatterns,
  FAIL_FAST,
  matchLoss,
  matchVeto,
  RUNNER_LOSS_PATTERNS,
} from '../../lib/classify/patterns.js';
import { errorLine, TEXT } from '../support/evidence.js';
import { LOSS_TEXTS } from '../support/fixtures.js';

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
});
