import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import type { Log } from '../obs/ports.js';

export const RepriseOctokit = Octokit.plugin(paginateRest, throttling, retry);
export type GitHubClient = InstanceType<typeof RepriseOctokit>;

export type GitHubCredentials =
  | { readonly kind: 'app'; readonly appId: string; readonly privateKey: string }
  | { readonly kind: 'token'; readonly token: string };

export interface ClientOptions {
  readonly apiUrl: string;
  readonly credentials: GitHubCredentials;
  readonly log: Log;
  /** Waits up to this long in-process for a rate limit; longer waits go back to the queue. */
  readonly maxInlineWaitSeconds?: number;
  /** Base of plugin-retry's backoff, in ms (tests shorten it). */
  readonly retryBaseMs?: number;
}

/** A rate limit longer than the worker should wait: the message is retried later instead. */
export class RateLimitedError extends Error {
  override name = 'RateLimitedError';
  constructor(readonly retryAfterSeconds: number) {
    super(`GitHub rate limit: retry after ${retryAfterSeconds}s`);
  }
}

/** Seconds to wait when an error is GitHub's rate limit (primary or secondary), else undefined. */
export function rateLimitDelay(err: unknown, nowMs = Date.now()): number | undefined {
  if (err instanceof RateLimitedError) return err.retryAfterSeconds;
  const e = err as { status?: number; response?: { headers?: Record<string, string | undefined> } };
  if (e?.status !== 403 && e?.status !== 429) return undefined;
  const h = e.response?.headers ?? {};
  if (h['retry-after'] !== undefined) return Math.max(1, Number(h['retry-after']) || 60);
  if (h['x-ratelimit-remaining'] === '0' && h['x-ratelimit-reset']) {
    return Math.max(1, Number(h['x-ratelimit-reset']) - Math.floor(nowMs / 1000));
  }
  return e.status === 429 ? 60 : undefined;
}

/** GHES serves GraphQL at /api/graphql beside /api/v3; github.com and the simulator at /graphql. */
export function graphqlUrlFor(apiUrl: string): string {
  const base = apiUrl.replace(/\/+$/, '');
  return base.endsWith('/api/v3') ? `${base.slice(0, -'/v3'.length)}/graphql` : `${base}/graphql`;
}

/**
 * Builds one client per installation (installation tokens are cached by auth-app for
 * their hour). Retries 5xx with backoff; rate limits wait in-process only briefly.
 */
export function createClientFactory(opts: ClientOptions): (installationId: number | null) => GitHubClient {
  const cache = new Map<string, GitHubClient>();
  const maxWait = opts.maxInlineWaitSeconds ?? 5;
  // Declining a retry lets the 403/429 surface; rateLimitDelay() then turns it into a deferral.
  const waitInline = (retryAfter: number, _o: unknown, _k: unknown, retryCount: number): boolean =>
    retryAfter <= maxWait && retryCount < 1;
  const throttle = { onRateLimit: waitInline, onSecondaryRateLimit: waitInline };
  const log = {
    debug: (m: string) => opts.log.debug(m),
    info: (m: string) => opts.log.debug(m),
    warn: (m: string) => opts.log.warn(m),
    error: (m: string) => opts.log.error(m),
  };
  return (installationId) => {
    const key = String(installationId);
    let client = cache.get(key);
    if (client) return client;
    const common = {
      baseUrl: opts.apiUrl.replace(/\/+$/, ''),
      userAgent: 'reprise',
      log,
      throttle,
      retry: { retryAfterBaseValue: opts.retryBaseMs ?? 1000 },
    };
    const c = opts.credentials;
    if (c.kind === 'token') {
      client = new RepriseOctokit({ ...common, auth: c.token });
    } else {
      if (installationId === null) throw new Error('App credentials need an installation id; the delivery had none');
      client = new RepriseOctokit({
        ...common,
        authStrategy: createAppAuth,
        auth: { appId: c.appId, privateKey: c.privateKey, installationId },
      });
    }
    cache.set(key, client);
    return client;
  };
}
