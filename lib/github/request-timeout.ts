import type { Octokit } from '@octokit/core';
import { GITHUB_REQUEST_TIMEOUT_MS } from '../config/github-settings.js';
import { RequestTimeoutError } from '../errors.js';

/** How long one request may take, and the signal that says it has run out (tests drive their own clock). */
export interface RequestTimeout {
  readonly ms: number;
  readonly signal: (ms: number) => AbortSignal;
}

/** How long a GitHub request may take, and what ends it (tests pass a clock's signal). */
export interface TimeoutOptions {
  /** How long one request may take; GITHUB_REQUEST_TIMEOUT_MS when absent. */
  readonly requestTimeoutMs?: number;
  /** Makes the signal that ends a request at its timeout; AbortSignal.timeout when absent (tests pass a clock's). */
  readonly timeoutSignal?: (ms: number) => AbortSignal;
}

/** The timeout of every request, from the options or GITHUB_REQUEST_TIMEOUT_MS. */
export const timeoutOf = (opts: TimeoutOptions): RequestTimeout => ({
  ms: opts.requestTimeoutMs ?? GITHUB_REQUEST_TIMEOUT_MS,
  signal: opts.timeoutSignal ?? ((ms) => AbortSignal.timeout(ms)),
});

/**
 * Innermost on every client, so each attempt plugin-retry makes gets its own timeout, and the
 * body's read is inside it. A timed-out request is a RequestTimeoutError, which carries no
 * `request`, so plugin-retry leaves it alone: the message is retried later, not in-process.
 */
export function requestTimeout(octokit: Octokit, options: Record<string, unknown>) {
  const t = options.requestTimeout as RequestTimeout | undefined;
  if (!t) return {};
  octokit.hook.wrap('request', async (request, opts) => {
    const timeout = t.signal(t.ms);
    // The hooks inside this one read the options object they were bound to: set, not copied.
    opts.request = { ...opts.request, signal: timeout };
    try {
      return await request(opts);
    } catch (err) {
      if (!timeout.aborted) throw err;
      // The full URL, not the route template: where it went is what the reader must check.
      const { method, url } = octokit.request.endpoint.parse(opts);
      throw new RequestTimeoutError(`GitHub did not answer ${method} ${url} within ${t.ms} ms`, { cause: err });
    }
  });
  return {};
}
