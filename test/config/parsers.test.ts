import { describe, expect, it } from 'vitest';
import {
  jsonObjectList,
  bool,
  email,
  eventBus,
  int,
  list,
  LOG_RETENTION_DAYS,
  oneOf,
  percent,
  regexpLines,
  retention,
  text,
  url,
} from '../../lib/config/parsers.js';
import { ConfigError } from '../../lib/errors.js';

/** The ConfigError message a parser throws, or '' when it accepts. */
const refusal = (read: () => unknown): string => {
  try {
    read();
    return '';
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
};

describe('int', () => {
  const attempts = int(1, 10, 'GitHub keeps 50 attempts', 'attempts');

  it('reads text and numbers within its range', () => {
    expect(attempts(' 3 ', 'X')).toBe(3);
    expect(attempts(10, 'X')).toBe(10);
    expect(attempts.typed(1, 'X')).toBe(1);
  });

  it.each([['0'], ['11'], ['2.5'], [''], ['three'], [null], [true]])(
    'refuses %j, naming the setting, the range and why',
    (raw) => {
      expect(refusal(() => attempts(raw, 'MAX_ATTEMPTS'))).toBe(
        `MAX_ATTEMPTS: expected a whole number of attempts from 1 to 10 (GitHub keeps 50 attempts), got ${JSON.stringify(raw)}`,
      );
    },
  );

  it('typed refuses a number written as text', () => {
    expect(refusal(() => attempts.typed('3', 'max_attempts'))).toMatch(/^max_attempts: expected a whole number/);
  });

  it('with no upper bound says "≥ min"', () => {
    expect(refusal(() => int(0)(-1, 'N'))).toBe('N: expected a whole number ≥ 0, got -1');
  });
});

describe('percent', () => {
  it('above 0 and at most 100, fractions allowed', () => {
    expect(percent('0.5', 'P')).toBe(0.5);
    expect(percent(100, 'P')).toBe(100);
    expect(refusal(() => percent('0', 'P'))).toBe('P: expected a percentage above 0 and at most 100, got "0"');
    expect(refusal(() => percent(100.1, 'P'))).not.toBe('');
  });
});

describe('bool', () => {
  it.each([
    ['true', true],
    [' YES ', true],
    ['1', true],
    ['false', false],
    ['No', false],
    ['0', false],
    [true, true],
  ])('text %j is %s', (raw, value) => {
    expect(bool(raw, 'B')).toBe(value);
  });

  it('refuses anything else, and typed refuses the text forms', () => {
    expect(refusal(() => bool('maybe', 'DRY_RUN'))).toBe('DRY_RUN: expected true or false, got "maybe"');
    expect(refusal(() => bool.typed('yes', 'dry_run'))).toBe('dry_run: expected true or false, got "yes"');
    expect(bool.typed(false, 'dry_run')).toBe(false);
  });
});

describe('oneOf', () => {
  const mode = oneOf(['all', 'pull_request', 'off'] as const, {
    normalize: (s) => s.toLowerCase(),
    booleans: ['off', 'all'],
  });

  it('text is trimmed and normalised; typed is taken exactly as written, or a boolean for its values', () => {
    expect(mode(' ALL ', 'S')).toBe('all');
    expect(mode.typed('pull_request', 's')).toBe('pull_request');
    expect(mode.typed(false, 's')).toBe('off');
    expect(mode.typed(true, 's')).toBe('all');
  });

  it('refuses other values, listing the choices and what a boolean stands for', () => {
    expect(refusal(() => mode('some', 'STALE_CHECK'))).toBe(
      'STALE_CHECK: expected one of all, pull_request, off, got "some"',
    );
    expect(refusal(() => mode.typed('ALL', 'stale_check'))).toBe(
      'stale_check: expected one of off, all, pull_request (false: off, true: all), got "ALL"',
    );
    expect(refusal(() => oneOf(['a', 'b'])(true, 'K'))).toBe('K: expected one of a, b, got true');
  });
});

describe('list', () => {
  const labels = list(/,/, { item: { test: /^[a-z-]+$/, what: 'a label' } });

  it('text splits on the separator, trims and drops blanks; a JSON array of strings is taken too', () => {
    expect(labels(' a , b,, c-d ', 'L')).toEqual(['a', 'b', 'c-d']);
    expect(labels(['x', ' y '], 'L')).toEqual(['x', 'y']);
  });

  it('an item that fails its test is named', () => {
    expect(refusal(() => labels('a,B!', 'LABELS'))).toBe('LABELS: expected a label, got "B!"');
  });

  it('nonEmpty refuses an empty list rather than read it as unset', () => {
    expect(refusal(() => list(/,/, { nonEmpty: true })(' , ', 'HOSTS'))).toBe(
      'HOSTS: expected at least one item, got " , "',
    );
    expect(list(/,/)(' , ', 'HOSTS')).toEqual([]);
  });

  it('typed takes an array as written; a block of lines only with `block`, kept line for line', () => {
    expect(list(/,/).typed([' a '], 'k')).toEqual([' a ']);
    expect(refusal(() => list(/,/).typed('a,b', 'k'))).toBe('k: expected a list of strings, got "a,b"');
    expect(list(/,/, { block: true }).typed('a\n\nb\r\nc', 'k')).toEqual(['a', '', 'b', 'c']);
    expect(refusal(() => list(/,/, { block: true }).typed(3, 'k'))).toBe(
      'k: expected a block of lines or a list of strings, got 3',
    );
  });
});

describe('url, text, email, eventBus', () => {
  it('url: http(s) only, trimmed, trailing slashes dropped', () => {
    expect(url(' https://ghe.example/api/v3// ', 'U')).toBe('https://ghe.example/api/v3');
    expect(url('http://127.0.0.1:8080', 'U')).toBe('http://127.0.0.1:8080');
    expect(refusal(() => url('ftp://x', 'GITHUB_API_URL'))).toBe(
      'GITHUB_API_URL: expected an http(s) URL, got "ftp://x"',
    );
    expect(refusal(() => url('not a url', 'U'))).not.toBe('');
    expect(refusal(() => url(5, 'U'))).toBe('U: expected an http(s) URL, got 5');
  });

  it('text: non-empty, trimmed', () => {
    expect(text(' x ', 'T')).toBe('x');
    expect(refusal(() => text('  ', 'T'))).toBe('T: expected a non-empty text, got "  "');
  });

  it('email: one @ with text on both sides', () => {
    expect(email(' ops@example.com ', 'E')).toBe('ops@example.com');
    expect(refusal(() => email('ops@', 'E'))).toBe('E: expected an e-mail address, got "ops@"');
    expect(refusal(() => email('a@b@c', 'E'))).not.toBe('');
  });

  it('eventBus: a name or the ARN of a bus of another account', () => {
    expect(eventBus('ci-events', 'B')).toBe('ci-events');
    const arn = 'arn:aws:events:eu-west-1:123456789012:event-bus/ci-events';
    expect(eventBus(arn, 'B')).toBe(arn);
    expect(refusal(() => eventBus('arn:aws:events:eu-west-1:12:event-bus/x', 'B'))).toBe(
      'B: expected an event bus name or ARN, got "arn:aws:events:eu-west-1:12:event-bus/x"',
    );
    expect(refusal(() => eventBus('has space', 'B'))).not.toBe('');
  });
});

describe('regexpLines', () => {
  it('one expression per line, blanks dropped', () => {
    expect(regexpLines('a+\n\n b$ \n', 'R')).toEqual(['a+', 'b$']);
  });

  it("one that does not compile is refused with the engine's reason", () => {
    expect(refusal(() => regexpLines('ok\n(unclosed', 'EXTRA_PATTERNS'))).toMatch(
      /^EXTRA_PATTERNS: Invalid regular expression/,
    );
  });
});

describe('retention', () => {
  it('only the periods CloudWatch Logs accepts', () => {
    for (const days of LOG_RETENTION_DAYS) expect(retention(String(days), 'R')).toBe(days);
    expect(refusal(() => retention('2', 'LOG_RETENTION_DAYS'))).toMatch(
      /^LOG_RETENTION_DAYS: expected a CloudWatch retention in days \(1, 3, 5, .*9999\), got "2"$/,
    );
    expect(refusal(() => retention('0', 'R'))).toMatch(/expected a whole number ≥ 1/);
  });
});

describe('jsonObjectList', () => {
  it('keeps a JSON list of objects as its JSON text, from text or typed', () => {
    expect(jsonObjectList(' [{"name":"a"}] ', 'X')).toBe('[{"name":"a"}]');
    expect(jsonObjectList.typed([{ name: 'a' }], 'X')).toBe('[{"name":"a"}]');
    expect(jsonObjectList('[]', 'X')).toBe('[]');
  });

  it.each(['not json', '{"name":"a"}', '["a"]', '[null]', '[[]]', 42])('refuses %j', (raw) => {
    expect(() => jsonObjectList(raw, 'X')).toThrow(ConfigError);
    expect(() => jsonObjectList(raw, 'X')).toThrow(/^X: expected a JSON list of objects/);
  });
});
