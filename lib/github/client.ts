import { createAppAuth, type StrategyOptions } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import Bottleneck from 'bottleneck/light.js';
import type { AppCredentials, GitHubCredentials } from '../config/secrets.js';
import { SETTINGS } from '../config/settings-schema.js';
import { RateLimitedError, UnknownInstallationError } from '../errors.js';
import type { Log } from '../obs/types.js';
import { installationTokenCache } from './installation-token-cache.js';
import { graphqlRateLimitDelayMs, type Headers, rateLimitDelayMs } from './rate-limit.js';
import { type RequestTimeout, requestTimeout, timeoutOf, type TimeoutOptions } from './request-timeout.js';

const RepriseOctokit = Octokit.plugin(requestTimeout, paginateRest, throttling, retry);
/** An installation's client: throttled, retried, and its faults typed. */
export type GitHubClient = InstanceType<typeof RepriseOctokit>;

/** The App's own client (a JWT) for the `/app` endpoints: no throttling queue, a short retry on 5xx. */
const AppOctokit = Octokit.plugin(requestTimeout, paginateRest, retry);
/** The App's own client (a JWT), for the `/app` endpoints. */
export type AppClient = InstanceType<typeof AppOctokit>;

/** REST calls, and GraphQL on its own client so a read query does not queue behind re-run POSTs. */
export interface GitHubClients {
  readonly rest: GitHubClient;
  readonly graphql: GitHubClient;
  /** The timeout every request of these clients has; the job log's host is read within it too. */
  readonly timeout: RequestTimeout;
}

/**
 * plugin-throttling spaces every non-GET request (GraphQL included) 1 s apart, across the
 * whole process. reprise spaces them per installation instead: POSTs by WRITE_SPACING_MS,
 * 350 ms by default (GitHub's secondary limit is 900 points a minute per endpoint, a POST
 * costing 5), GraphQL reads not at all. Re-run volume is bounded by the shared pace.
 */
export const WRITE_SPACING_MS = SETTINGS.writeSpacing.default;
const restWrites = new Bottleneck.Group({ maxConcurrent: 1, minTime: WRITE_SPACING_MS });
const graphqlReads = new Bottleneck.Group({ maxConcurrent: 8, minTime: 0 });

interface CommonOptions extends TimeoutOptions {
  readonly apiUrl: string;
  readonly log: Log;
  /** Base of plugin-retry's backoff, in ms (tests shorten it). */
  readonly retryBaseMs?: number;
  readonly userAgent?: string;
  /** The fetch every request goes through (the CLI's tests pass their own). */
  readonly fetch?: typeof fetch;
}

/** How installation clients are built: credentials, rate-limit waits and the spacing of writes. */
export interface ClientOptions extends CommonOptions {
  readonly credentials: GitHubCredentials;
  /** Waits up to this long in-process for a rate limit; longer waits go back to the queue. */
  readonly maxInlineWaitSeconds?: number;
  /** Called with `x-ratelimit-remaining` after each response, for the rate-limit alarm. */
  readonly onRateLimitRemaining?: (remaining: number) => void;
  /** This factory's own spacing of REST writes per installation (tests and the bench shorten it). */
  readonly writeSpacingMs?: number;
}

/** How the App's own client is built: the App's id and private key. */
export interface AppClientOptions extends CommonOptions {
  readonly credentials: AppCredentials;
}

/**
 * The request option of a call that must reach GitHub at most once per call: a re-run POST
 * creates content, and a retry GitHub cannot tell from the first may re-run twice. Neither
 * plugin-retry (`retries: 0`, 4xx and 5xx alike) nor plugin-throttling (a rate limit, however
 * short) sends it again in-process; the queue and the reconciler decide what comes next.
 */
export const ONE_SHOT = { retries: 0, oneShot: true } as const;

const isOneShot = (options: unknown): boolean =>
  (options as { request?: { oneShot?: unknown } } | undefined)?.request?.oneShot === true;

/** The request option through which a call names what counts it (see `meteredRequest`). */
interface MeterOption {
  readonly onSent?: () => void;
}

/**
 * Outermost on every client, so it sees each call once, after plugin-throttling and
 * plugin-retry did their part: it counts the call for whoever asked (a 304 too: it costs
 * nothing against the rate limit, but it is a round trip like any other) and turns a rate limit into RateLimitedError.
 */
function typedFaultsAndCount(client: Octokit): void {
  client.hook.wrap('request', async (request, options) => {
    const onSent = (options.request as MeterOption | undefined)?.onSent;
    try {
      const res = await request(options);
      onSent?.();
      const spent = graphqlRateLimitDelayMs(res.data, res.headers);
      if (spent !== undefined) throw new RateLimitedError(spent);
      return res;
    } catch (err) {
      if (err instanceof RateLimitedError) throw err;
      const e = err as { status?: number; message?: string; response?: { headers?: Headers; data?: unknown } };
      onSent?.();
      const said = (e.response?.data as { message?: unknown } | undefined)?.message;
      const message = typeof said === 'string' ? said : (e.message ?? '');
      const headers = e.response?.headers ?? {};
      // plugin-throttling turns GraphQL's 200 RATE_LIMITED answer into an error without a status.
      const delay =
        rateLimitDelayMs(e.status, headers, Date.now(), message) ?? graphqlRateLimitDelayMs(e.response?.data, headers);
      throw delay === undefined ? err : new RateLimitedError(delay, { cause: err });
    }
  });
}

/** `client.request`, with each call (each page too) reported to `onSent`. */
export function meteredRequest(client: GitHubClient, onSent: () => void): GitHubClient['request'] {
  const options: { request: MeterOption } = { request: { onSent } };
  return client.request.defaults(options);
}

const octokitLog = (log: Log) => ({
  debug: (m: string) => log.debug(m),
  info: (m: string) => log.debug(m),
  warn: (m: string) => log.warn(m),
  error: (m: string) => log.error(m),
});

const common = (opts: CommonOptions, retryBaseMs: number) => ({
  baseUrl: opts.apiUrl.replace(/\/+$/, ''),
  userAgent: opts.userAgent ?? 'reprise',
  log: octokitLog(opts.log),
  // 429 is a rate limit: plugin-throttling's to judge, never an immediate retry.
  retry: { retryAfterBaseValue: opts.retryBaseMs ?? retryBaseMs, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
  ...(opts.fetch && { request: { fetch: opts.fetch } }),
  requestTimeout: timeoutOf(opts),
});

/** A client authenticated as the App itself: auth-app signs a JWT for the `/app` endpoints. */
export function createAppClient(
  opts: AppClientOptions,
  tokenCache: NonNullable<StrategyOptions['cache']> = installationTokenCache(),
): AppClient {
  const { appId, privateKey } = opts.credentials;
  const client = new AppOctokit({
    ...common(opts, 1000),
    authStrategy: createAppAuth,
    auth: { appId, privateKey, cache: tokenCache },
  });
  typedFaultsAndCount(client);
  return client;
}

/**
 * Authenticates an installation's requests with its token, exchanged by the App's client. The
 * exchange is a call of its own, so a 404 there means the installation, never the request.
 */
function installationAuth({ app, installationId }: { app: AppClient; installationId: number }) {
  const token = async (): Promise<string> => {
    try {
      return ((await app.auth({ type: 'installation', installationId })) as { token: string }).token;
    } catch (err) {
      if ((err as { status?: number }).status === 404) throw new UnknownInstallationError('unknown installation');
      throw err;
    }
  };
  type Request = GitHubClient['request'];
  const hook = async (request: Request, route: string, parameters?: Record<string, unknown>) => {
    const endpoint = request.endpoint.merge(route, parameters);
    endpoint.headers.authorization = `token ${await token()}`;
    return request(endpoint as typeof endpoint & { url: string });
  };
  return Object.assign(async () => ({ type: 'token', tokenType: 'installation', token: await token() }), { hook });
}

/**
 * Builds one client per installation; installation tokens are cached for their hour and shared
 * by its REST and GraphQL clients. Retries 5xx with backoff; rate limits wait in-process only
 * briefly, longer ones surface as RateLimitedError.
 */
export function createClientFactory(opts: ClientOptions): (installationId: number | null) => GitHubClients {
  const cache = new Map<string, GitHubClients>();
  const writes =
    opts.writeSpacingMs === undefined
      ? restWrites
      : new Bottleneck.Group({ maxConcurrent: 1, minTime: opts.writeSpacingMs });
  const c = opts.credentials;
  const app = c.kind === 'app' ? createAppClient({ ...opts, credentials: c }) : undefined;
  const maxWait = opts.maxInlineWaitSeconds ?? 5;
  // Declining a retry lets the 403/429 surface; the outermost hook then turns it into RateLimitedError.
  const waitInline = (retryAfter: number, options: unknown, _k: unknown, retryCount: number): boolean =>
    retryAfter <= maxWait && retryCount < 1 && !isOneShot(options);
  const build = (installationId: number | null, write: InstanceType<typeof Bottleneck.Group>): GitHubClient => {
    const base = {
      ...common(opts, 1000),
      throttle: {
        id: `installation-${installationId}`,
        write,
        onRateLimit: waitInline,
        onSecondaryRateLimit: waitInline,
      },
    };
    let client: GitHubClient;
    if (!app) {
      client = new RepriseOctokit({ ...base, auth: (c as { token: string }).token });
    } else {
      if (installationId === null) {
        throw new UnknownInstallationError('App credentials need an installation id; the delivery had none');
      }
      client = new RepriseOctokit({ ...base, authStrategy: installationAuth, auth: { app, installationId } });
    }
    const report = opts.onRateLimitRemaining;
    if (report) {
      client.hook.after('request', (res) => {
        const remaining = Number(res.headers['x-ratelimit-remaining']);
        if (Number.isFinite(remaining)) report(remaining);
      });
    }
    typedFaultsAndCount(client);
    return client;
  };
  return (installationId) => {
    const key = String(installationId);
    let clients = cache.get(key);
    if (!clients) {
      clients = {
        rest: build(installationId, writes),
        graphql: build(installationId, graphqlReads),
        timeout: timeoutOf(opts),
      };
      cache.set(key, clients);
    }
    return clients;
  };
}
