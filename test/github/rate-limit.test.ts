import { describe, expect, it } from 'vitest';
import { graphqlRateLimitDelayMs, rateLimitDelayMs } from '../../lib/github/rate-limit.js';
import { PRIMARY_MESSAGE, SECONDARY_MESSAGE } from '../sim/index.js';

describe('rateLimitDelayMs reads every documented shape', () => {
  const now = 1_800_000_000_000;
  it.each([403, 429])('%i with retry-after: the seconds it names', (status) => {
    expect(rateLimitDelayMs(status, { 'retry-after': '7' }, now)).toBe(7_000);
  });
  it.each([403, 429])('%i with x-ratelimit-remaining 0: until the reset', (status) => {
    const reset = String(now / 1000 + 42);
    expect(rateLimitDelayMs(status, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, now)).toBe(42_000);
  });
  it.each([
    [403, SECONDARY_MESSAGE],
    [429, SECONDARY_MESSAGE],
    [403, 'You have triggered an abuse detection mechanism. Please wait a few minutes before you try again.'],
    [403, PRIMARY_MESSAGE],
    [429, 'Too Many Requests'],
  ])('%i with the message alone (%s): at least a minute', (status, message) => {
    expect(rateLimitDelayMs(status, { 'x-ratelimit-remaining': '4999' }, now, message)).toBe(60_000);
  });
  it('a plain 403 refusal is no rate limit', () => {
    expect(rateLimitDelayMs(403, { 'x-ratelimit-remaining': '4999' }, now, 'No failed jobs to re-run')).toBeUndefined();
    expect(
      rateLimitDelayMs(403, { 'x-ratelimit-remaining': '4999' }, now, 'Resource not accessible by integration'),
    ).toBeUndefined();
  });
});

describe('rateLimitDelayMs: the edges', () => {
  const now = 1_800_000_000_000;
  it('only 403 and 429 can be rate limits', () => {
    for (const status of [undefined, 200, 404, 422, 500, 503]) {
      expect(
        rateLimitDelayMs(status, { 'retry-after': '7', 'x-ratelimit-remaining': '0' }, now, SECONDARY_MESSAGE),
      ).toBeUndefined();
    }
  });

  it('retry-after wins over the reset; one that is no number, or 0, asks for a minute or a second', () => {
    const reset = String(now / 1000 + 600);
    expect(
      rateLimitDelayMs(429, { 'retry-after': '3', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, now),
    ).toBe(3_000);
    expect(rateLimitDelayMs(429, { 'retry-after': 'soon' }, now)).toBe(60_000);
    expect(rateLimitDelayMs(429, { 'retry-after': '0' }, now)).toBe(60_000);
    expect(rateLimitDelayMs(429, { 'retry-after': 0.2 }, now)).toBe(1_000);
  });

  it('a reset already past waits one second; a spent limit without a reset waits a minute', () => {
    const past = String(now / 1000 - 30);
    expect(rateLimitDelayMs(403, { 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': past }, now)).toBe(1_000);
    expect(rateLimitDelayMs(403, { 'x-ratelimit-remaining': '0' }, now)).toBe(60_000);
  });
});

describe('graphqlRateLimitDelayMs', () => {
  const now = 1_800_000_000_000;
  it('a 200 answer with a RATE_LIMITED error waits until the reset', () => {
    const data = { data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded' }] };
    expect(graphqlRateLimitDelayMs(data, { 'x-ratelimit-reset': String(now / 1000 + 90) }, now)).toBe(90_000);
    expect(graphqlRateLimitDelayMs(data, {}, now)).toBe(60_000);
  });

  it('data, other errors or no answer at all are no rate limit', () => {
    expect(graphqlRateLimitDelayMs({ data: { node: null } }, {}, now)).toBeUndefined();
    expect(graphqlRateLimitDelayMs({ errors: [{ type: 'NOT_FOUND' }] }, {}, now)).toBeUndefined();
    expect(graphqlRateLimitDelayMs({ errors: 'RATE_LIMITED' }, {}, now)).toBeUndefined();
    expect(graphqlRateLimitDelayMs(null, {}, now)).toBeUndefined();
    expect(graphqlRateLimitDelayMs(undefined, {}, now)).toBeUndefined();
  });
});
