/** Response headers as Octokit hands them over. */
export type Headers = Readonly<Record<string, string | number | undefined>>;

/**
 * GitHub's documented words for a rate limit that may come without either header: a secondary
 * limit ("You have exceeded a secondary rate limit", formerly "abuse detection") or a spent
 * primary one ("API rate limit exceeded").
 */
const RATE_LIMIT_MESSAGE = /\bsecondary rate limit\b|\babuse detection mechanism\b|\bAPI rate limit exceeded\b/i;

/** GitHub asks for at least a minute when a rate limit names no time. */
const UNNAMED_WAIT_MS = 60_000;

/** Ms until the epoch second `x-ratelimit-reset` names; a minute when it names none. */
function untilReset(headers: Headers, nowMs: number): number {
  const reset = Number(headers['x-ratelimit-reset']);
  const seconds = Number.isFinite(reset) && reset > 0 ? reset - Math.floor(nowMs / 1000) : 60;
  return Math.max(1, seconds) * 1000;
}

/**
 * How long a rate-limited answer asks to wait, in ms; undefined when the answer is no rate
 * limit (a plain 403 is a refusal). GitHub answers a rate limit with 403 or 429 and one of:
 * `retry-after` in seconds; `x-ratelimit-remaining: 0` with `x-ratelimit-reset`, the epoch
 * second the limit resets at; or the message alone, and then asks for at least a minute.
 */
export function rateLimitDelayMs(
  status: number | undefined,
  headers: Headers,
  nowMs = Date.now(),
  message = '',
): number | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = headers['retry-after'];
  if (retryAfter !== undefined) return Math.max(1, Number(retryAfter) || 60) * 1000;
  if (String(headers['x-ratelimit-remaining']) === '0') return untilReset(headers, nowMs);
  return status === 429 || RATE_LIMIT_MESSAGE.test(message) ? UNNAMED_WAIT_MS : undefined;
}

/** A GraphQL answer GitHub sends when its points are spent: 200, with a RATE_LIMITED error. */
export function graphqlRateLimitDelayMs(data: unknown, headers: Headers, nowMs = Date.now()): number | undefined {
  const errors = (data as { errors?: { type?: string }[] } | null | undefined)?.errors;
  if (!Array.isArray(errors) || !errors.some((e) => e?.type === 'RATE_LIMITED')) return undefined;
  return untilReset(headers, nowMs);
}
