import { fail, type SimResponse } from './http.js';

const LIMITS_DOCS = 'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api';

/** GitHub's words for a secondary limit, and for a spent primary limit. */
export const SECONDARY_MESSAGE =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.';
export const PRIMARY_MESSAGE =
  'API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID.';

/**
 * How a rate-limited answer tells the client when to come back, each as GitHub documents it:
 * a `retry-after` header; `x-ratelimit-remaining: 0` with the `x-ratelimit-reset` epoch second;
 * or the message alone (the client must then wait at least a minute).
 */
export type RateLimitSignal = 'retry-after' | 'reset' | 'message';

export interface RateLimitShape {
  readonly status: 403 | 429;
  readonly signal: RateLimitSignal;
  /** Seconds to wait that the headers name (retry-after, or the reset's distance); default 60. */
  readonly seconds?: number;
  /** Default: the secondary-limit message. */
  readonly message?: string;
}

/** Every shape GitHub documents for a rate-limited answer. */
export const RATE_LIMIT_SHAPES: readonly RateLimitShape[] = (['retry-after', 'reset', 'message'] as const).flatMap(
  (signal) => ([403, 429] as const).map((status) => ({ status, signal })),
);

/** Headers only; the server fills in the bucket's own `x-ratelimit-*` where these leave them out. */
export function rateLimitHeaders(signal: RateLimitSignal, seconds: number, nowMs = Date.now()): Record<string, string> {
  if (signal === 'retry-after') return { 'retry-after': String(seconds) };
  if (signal === 'reset') {
    return { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(nowMs / 1000) + seconds) };
  }
  return {};
}

export function rateLimited(shape: RateLimitShape, docs = LIMITS_DOCS): SimResponse {
  const headers = rateLimitHeaders(shape.signal, shape.seconds ?? 60);
  return fail(shape.status, shape.message ?? SECONDARY_MESSAGE, docs, headers);
}
