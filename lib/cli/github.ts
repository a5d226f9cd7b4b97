import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { createPrivateKey } from 'node:crypto';
import { privateKeyFrom, runtimeSettings, type RuntimeSettings } from '../config/env.js';
import { ConfigError } from '../config/errors.js';
import { createClientFactory, type GitHubClients, type GitHubCredentials } from '../github/client.js';
import type { Log } from '../obs/ports.js';
import { CliError, type CliIo } from './io.js';

/** The CLI's own client for App endpoints (JWT): no throttling queue, a short retry on 5xx. */
const CliOctokit = Octokit.plugin(paginateRest, retry);
export type AppClient = InstanceType<typeof CliOctokit>;

type Env = CliIo['env'];

/** Settings from the environment, as `npm start` and the functions read them. */
export function settingsFrom(env: Env): RuntimeSettings {
  try {
    return runtimeSettings(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
}

/** App credentials (APP_ID + PRIVATE_KEY/PRIVATE_KEY_PATH), else GITHUB_TOKEN when allowed. */
export function credentialsFrom(env: Env, allowToken: boolean): GitHubCredentials {
  let key: string | undefined;
  try {
    key = privateKeyFrom(env);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  if (env.APP_ID && key) {
    if (!/^\d+$/.test(env.APP_ID)) throw new CliError(`APP_ID must be the App's number, got "${env.APP_ID}"`);
    try {
      createPrivateKey(key);
    } catch (err) {
      throw new CliError(
        `PRIVATE_KEY is not a PEM private key (${(err as Error).message}); use the .pem file GitHub issued for App ${env.APP_ID}`,
      );
    }
    return { kind: 'app', appId: env.APP_ID, privateKey: key };
  }
  if (allowToken && env.GITHUB_TOKEN) return { kind: 'token', token: env.GITHUB_TOKEN };
  if (env.APP_ID) throw new CliError('APP_ID is set but PRIVATE_KEY or PRIVATE_KEY_PATH is missing');
  throw new CliError(
    allowToken
      ? 'GitHub credentials missing: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), or GITHUB_TOKEN'
      : "this command needs the App's credentials: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH); GITHUB_TOKEN cannot call the /app endpoints",
  );
}

/** A client that authenticates as the App itself (a JWT), for the /app endpoints. */
export function appClient(apiUrl: string, creds: GitHubCredentials & { kind: 'app' }, io: CliIo): AppClient {
  return new CliOctokit({
    baseUrl: apiUrl,
    userAgent: 'reprise-cli',
    authStrategy: createAppAuth,
    auth: { appId: creds.appId, privateKey: creds.privateKey },
    retry: { retryAfterBaseValue: 200 },
    ...(io.fetch && { request: { fetch: io.fetch } }),
  });
}

const quietLog: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** The worker's own client factory, so the CLI reads GitHub exactly as a decision does. */
export function workerClients(
  settings: RuntimeSettings,
  creds: GitHubCredentials,
  log: Log = quietLog,
): (installationId: number | null) => GitHubClients {
  return createClientFactory({ apiUrl: settings.apiUrl, credentials: creds, log, retryBaseMs: 200 });
}

/** The installation that covers a repository (App credentials), or null with a token. */
export async function installationFor(app: AppClient | undefined, owner: string, repo: string): Promise<number | null> {
  if (!app) return null;
  try {
    const { data } = await app.request('GET /repos/{owner}/{repo}/installation', { owner, repo });
    return data.id;
  } catch (err) {
    if ((err as { status?: number }).status === 404) {
      const url = (err as { request?: { url?: string } }).request?.url ?? '';
      throw new CliError(
        `the App is not installed on ${owner}/${repo} (GET ${url} answered 404): install it on that repository, or check the name`,
      );
    }
    throw err;
  }
}

interface HttpErrorLike {
  status?: number;
  message?: string;
  request?: { method?: string; url?: string };
  response?: { data?: unknown };
  cause?: unknown;
}

/** One clear line for a GitHub failure: what was tried, what GitHub said, what to check. */
export function describeGitHubError(err: unknown): string | undefined {
  const e = err as HttpErrorLike;
  const url = e?.request?.url;
  if (!url || e.status === undefined) return undefined;
  const tried = `${e.request?.method ?? 'GET'} ${url}`;
  const said = (e.response?.data as { message?: string } | undefined)?.message ?? e.message ?? '';
  if (e.status === 401) {
    return (
      `GitHub refused the credentials (401 ${said}) for ${tried}. ` +
      'Check APP_ID and PRIVATE_KEY (the key must be one issued for this App) or GITHUB_TOKEN, and GITHUB_API_URL'
    );
  }
  if (e.status === 404) return `not found: ${tried} answered 404 (or the credentials cannot see it)`;
  if (e.status === 403) return `forbidden: ${tried} answered 403 ${said}`;
  if (e.status === 500 && /fetch failed|ECONNREFUSED|ENOTFOUND/i.test(`${said} ${String(e.cause ?? '')}`)) {
    const cause = (e.cause as { cause?: { code?: string } } | undefined)?.cause?.code ?? said;
    return `cannot reach GitHub: ${tried} failed (${cause}); check GITHUB_API_URL`;
  }
  return `${tried} answered ${e.status}: ${said}`;
}
