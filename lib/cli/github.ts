import { deploymentSettings, type DeploymentSettings } from '../config/env.js';
import { credentialsFromEnv, type AppCredentials, type GitHubCredentials } from '../config/secrets.js';
import { ConfigError, RequestTimeoutError } from '../errors.js';
import { type AppClient, createAppClient, createClientFactory, type GitHubClients } from '../github/client.js';
import type { Log } from '../obs/types.js';
import { CliError, type CliIo, println } from './io.js';
import type { Env } from '../config/environment.js';

export type { AppClient };

/** A setting the CLI cannot use is the user's to fix: one line, no stack. */
function asCliError<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
}

/** Settings from the environment, as `npm start` and the functions read them. */
export function settingsFrom(env: Env): DeploymentSettings {
  return asCliError(() => deploymentSettings(env));
}

/** 127.0.0.0/8, ::1 and localhost: this machine, where plain http leaves nothing on a network. */
export const isLoopbackHost = (hostname: string): boolean =>
  /^127(\.\d{1,3}){3}$/.test(hostname) || hostname === '[::1]' || hostname.toLowerCase() === 'localhost';

/** Credentials go over https only; plain http only to this machine. Otherwise one clear error naming the URL. */
export function requireCredentialSafeUrl(url: string, name: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new CliError(`${name}: expected an https URL, got "${url}"`);
  }
  if (u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname))) return;
  throw new CliError(
    `${name} is ${url}: reprise sends GitHub credentials only over https (plain http only to ` +
      '127.0.0.1, ::1 or localhost); nothing was sent. Use an https URL',
  );
}

/**
 * The settings of a command that calls GitHub: both GitHub URLs checked before any credential
 * is used, and the host said first (on stderr with --json, so the JSON stays clean).
 */
export function githubSettings(io: CliIo, json: boolean | undefined): DeploymentSettings {
  const settings = settingsFrom(io.env);
  requireCredentialSafeUrl(settings.apiUrl, 'GITHUB_API_URL');
  requireCredentialSafeUrl(settings.graphqlUrl, 'GITHUB_GRAPHQL_URL');
  announceGitHub(io, json, settings.apiUrl, settings.graphqlUrl);
  return settings;
}

/** `GitHub host: HOST (URL)`, the GraphQL host too when it is another. */
export function announceGitHub(io: CliIo, json: boolean | undefined, apiUrl: string, graphqlUrl?: string): void {
  const host = new URL(apiUrl).host;
  const gql = graphqlUrl === undefined ? host : new URL(graphqlUrl).host;
  const line = `GitHub host: ${host} (${apiUrl})${gql === host ? '' : `, GraphQL host: ${gql} (${graphqlUrl})`}`;
  println(json ? io.stderr : io.stdout, line);
}

/** App credentials (APP_ID + PRIVATE_KEY/PRIVATE_KEY_PATH), else GITHUB_TOKEN when allowed. */
export function credentialsFrom(env: Env, allowToken: boolean): GitHubCredentials {
  return asCliError(() => credentialsFromEnv(env, { allowToken }));
}

const quietLog: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A client that authenticates as the App itself (a JWT), for the /app endpoints. */
export function appClient(apiUrl: string, creds: AppCredentials, io: CliIo): AppClient {
  return createAppClient({
    apiUrl,
    credentials: creds,
    log: quietLog,
    userAgent: 'reprise-cli',
    retryBaseMs: 200,
    ...(io.fetch && { fetch: io.fetch }),
  });
}

/** The worker's own client factory, so the CLI reads GitHub exactly as a decision does. */
export function workerClients(
  settings: DeploymentSettings,
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
  if (err instanceof RequestTimeoutError) {
    return `${err.message}; check GITHUB_API_URL and that this machine reaches that host (a proxy, VPN or firewall?), then try again`;
  }
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
