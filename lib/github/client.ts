import { createAppAuth, type StrategyOptions } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import Bottleneck from 'bottleneck/light.js';
import type { Log } from '../obs/ports.js';

export const RepriseOctokit = Octokit.plugin(paginateRest, throttling, retry);
export type GitHubClient = InstanceType<typeof RepriseOctokit>;

/** REST calls, and GraphQL on its own client so a read query does not queue behind re-run POSTs. */
export interface GitHubClients {
  readonly rest: GitHubClient;
  readonly graphql: GitHubClient;
}

/**
 * plugin-throttling spaces every non-GET request (GraphQL included) 1 s apart, across the
 * whole process. reprise spaces them per installation instead: POSTs by 350 ms (GitHub's
 * secondary limit is 900 points a minute per endpoint, a POST costing 5), GraphQL reads not
 * at all. Re-run volume is bounded by the retry budget, not by this spacing.
 */
export const WRITE_SPACING_MS = 350;
const restWrites = new Bottleneck.Group({ maxConcurrent: 1, minTime: WRITE_SPACING_MS });
const graphqlReads = new Bottleneck.Group({ maxConcurrent: 8, minTime: 0 });

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
  /** Called with `x-ratelimit-remaining` after each response, for the rate-limit alarm. */
  readonly onRateLimitRemaining?: (remaining: number) => void;
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
 * Installation tokens for auth-app, shared by an installation's REST and GraphQL clients so
 * both use one token exchange an hour. Kept 59 minutes, as auth-app's own cache does; a miss
 * answers '' (auth-app reads any falsy answer as a miss).
 */
export function installationTokenCache(
  now: () => number = Date.now,
  ttlMs = 59 * 60_000,
): NonNullable<StrategyOptions['cache']> {
  const entries = new Map<string, { readonly value: string; readonly until: number }>();
  return {
    get: (key: string) => {
      const hit = entries.get(key);
      if (hit && hit.until > now()) return hit.value;
      entries.delete(key);
      return '';
    },
    set: (key: string, value: string) => void entries.set(key, { value, until: now() + ttlMs }),
  };
}

/**
 * Builds one client per installation; installation tokens are cached for their hour and shared
 * by its REST and GraphQL clients. Retries 5xx with backoff; rate limits wait in-process only briefly.
 */
export function createClientFactory(opts: ClientOptions): (installationId: number | null) => GitHubClients {
  const cache = new Map<string, GitHubClients>();
  const tokens = installationTokenCache();
  const maxWait = opts.maxInlineWaitSeconds ?? 5;
  // Declining a retry lets the 403/429 surface; rateLimitDelay() then turns it into a deferral.
  const waitInline = (retryAfter: number, _o: unknown, _k: unknown, retryCount: number): boolean =>
    retryAfter <= maxWait && retryCount < 1;
  const throttle = (id: string, write: InstanceType<typeof Bottleneck.Group>) => ({
    id,
    write,
    onRateLimit: waitInline,
    onSecondaryRateLimit: waitInline,
  });
  const log = {
    debug: (m: string) => opts.log.debug(m),
    info: (m: string) => opts.log.debug(m),
    warn: (m: string) => opts.log.warn(m),
    error: (m: string) => opts.log.error(m),
  };
  const build = (installationId: number | null, write: InstanceType<typeof Bottleneck.Group>): GitHubClient => {
    const common = {
      baseUrl: opts.apiUrl.replace(/\/+$/, ''),
      userAgent: 'reprise',
      log,
      throttle: throttle(`installation-${installationId}`, write),
      retry: { retryAfterBaseValue: opts.retryBaseMs ?? 1000 },
    };
    const c = opts.credentials;
    let client: GitHubClient;
    if (c.kind === 'token') {
      client = new RepriseOctokit({ ...common, auth: c.token });
    } else {
      if (installationId === null) throw new Error('App credentials need an installation id; the delivery had none');
      client = new RepriseOctokit({
        ...common,
        authStrategy: createAppAuth,
        auth: { appId: c.appId, privateKey: c.privateKey, installationId, cache: tokens },
      });
    }
    const report = opts.onRateLimitRemaining;
    if (report) {
      client.hook.after('request', (res) => {
        const remaining = Number(res.headers['x-ratelimit-remaining']);
        if (Number.isFinite(remaining)) report(remaining);
      });
    }
    return client;
  };
  return (installationId) => {
    const key = String(installationId);
    let clients = cache.get(key);
    if (!clients) {
      clients = { rest: build(installationId, restWrites), graphql: build(installationId, graphqlReads) };
      cache.set(key, clients);
    }
    return clients;
  };
}
