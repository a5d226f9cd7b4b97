import type { SimRequest, SimResponse } from './http.js';
import { rateLimited, type RateLimitShape } from './rate-limits.js';

/**
 * Re-run POSTs and check-run POSTs: the content-generating requests reprise makes. A cancel
 * creates nothing (no attempt, no check run) and is not among them.
 */
export const CONTENT_REQUESTS = /\/actions\/(runs\/\d+\/(rerun|rerun-failed-jobs)|jobs\/\d+\/rerun)$|\/check-runs$/;

/** A GraphQL mutation (`enqueuePullRequest`) creates content as a re-run does. */
const isMutation = (req: SimRequest): boolean =>
  /\/graphql$/.test(req.path) && /^\s*mutation\b/.test(String((req.body as { query?: unknown } | null)?.query ?? ''));

export interface ContentLimitOptions {
  /** Requests allowed per installation within any `windowMs` (GitHub: 80 a minute). */
  readonly limit: number;
  /** The rolling window; default one minute. */
  readonly windowMs?: number;
  /** The limit's clock; tests move it with the queue's. Default Date.now. */
  readonly now?: () => number;
  /** Which POSTs count; default {@link CONTENT_REQUESTS}. */
  readonly paths?: RegExp;
  /** How the refusal is shaped; default 403 with `retry-after` for the window's remainder. */
  readonly answer?: Omit<RateLimitShape, 'seconds'>;
}

export interface ContentLimitStats {
  /** Content-generating requests received, accepted or refused. */
  readonly received: number;
  readonly accepted: number;
  readonly refused: number;
  /** Per installation (`none` for tokens without one): the most accepted within any window. */
  readonly peakInWindow: number;
}

/**
 * GitHub's secondary limit on content-generating requests, per installation in a rolling
 * window: past it, a 403 with GitHub's message and a `retry-after` until the oldest request
 * of the window leaves it. Off unless the simulator is started with one.
 */
export class ContentLimit {
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly paths: RegExp;
  private readonly accepted = new Map<string, number[]>();
  private counts = { received: 0, accepted: 0, refused: 0, peakInWindow: 0 };

  constructor(private readonly opts: ContentLimitOptions) {
    this.windowMs = opts.windowMs ?? 60_000;
    this.now = opts.now ?? Date.now;
    this.paths = opts.paths ?? CONTENT_REQUESTS;
  }

  get stats(): ContentLimitStats {
    return { ...this.counts };
  }

  /** Counts a request; answers GitHub's refusal when it is one too many, else null. */
  take(req: SimRequest): SimResponse | null {
    if (req.method !== 'POST' || !(this.paths.test(req.path) || isMutation(req))) return null;
    this.counts.received++;
    const key = req.auth.kind === 'token' ? String(req.auth.installationId ?? 'none') : 'none';
    const now = this.now();
    const times = (this.accepted.get(key) ?? []).filter((t) => t > now - this.windowMs);
    this.accepted.set(key, times);
    if (times.length >= this.opts.limit) {
      this.counts.refused++;
      const retryAfter = Math.max(1, Math.ceil((times[0]! + this.windowMs - now) / 1000));
      return rateLimited({ ...(this.opts.answer ?? { status: 403, signal: 'retry-after' }), seconds: retryAfter });
    }
    times.push(now);
    this.counts.accepted++;
    this.counts.peakInWindow = Math.max(this.counts.peakInWindow, times.length);
    return null;
  }
}
