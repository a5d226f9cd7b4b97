import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import type { Env } from './environment.js';

/** How reprise authenticates to GitHub: as an App (JWT, then installation tokens), or with a token for trials. */
export type GitHubCredentials =
  | { readonly kind: 'app'; readonly appId: string; readonly privateKey: string }
  | { readonly kind: 'token'; readonly token: string };

/** A GitHub App's id and private key: what the deployed functions always use. */
export type AppCredentials = Extract<GitHubCredentials, { kind: 'app' }>;

/** `PRIVATE_KEY` may carry `\n` escapes (one-line .env files); `PRIVATE_KEY_PATH` names a PEM file. */
export function privateKeyFrom(env: Env): string | undefined {
  if (env.PRIVATE_KEY) return env.PRIVATE_KEY.replace(/\\n/g, '\n');
  if (env.PRIVATE_KEY_PATH) {
    try {
      return readFileSync(env.PRIVATE_KEY_PATH, 'utf8');
    } catch (err) {
      throw new ConfigError(`PRIVATE_KEY_PATH: cannot read ${env.PRIVATE_KEY_PATH}: ${(err as Error).message}`);
    }
  }
  return undefined;
}

/**
 * The one check of App credentials, wherever they come from: the id is the App's number and
 * the key parses as a PEM private key. `names` says what the source calls the two values.
 */
function appCredentials(
  appId: unknown,
  privateKey: unknown,
  names: { readonly appId: string; readonly privateKey: string },
): AppCredentials {
  const id = typeof appId === 'number' ? String(appId) : appId;
  if (typeof id !== 'string' || !/^\d+$/.test(id)) {
    throw new ConfigError(`${names.appId} must be the App's number, got ${JSON.stringify(appId ?? null)}`);
  }
  const key = typeof privateKey === 'string' ? privateKey.replace(/\\n/g, '\n') : '';
  try {
    createPrivateKey(key);
  } catch (err) {
    throw new ConfigError(
      `${names.privateKey} is not a PEM private key (${(err as Error).message}); use the .pem file GitHub issued for App ${id}`,
    );
  }
  return { kind: 'app', appId: id, privateKey: key };
}

/**
 * Credentials from the environment: APP_ID with PRIVATE_KEY or PRIVATE_KEY_PATH, else
 * GITHUB_TOKEN when a token will do (the /app endpoints need the App itself).
 */
export function credentialsFromEnv(env: Env, { allowToken }: { readonly allowToken: boolean }): GitHubCredentials {
  const key = privateKeyFrom(env);
  if (env.APP_ID && key) return appCredentials(env.APP_ID, key, { appId: 'APP_ID', privateKey: 'PRIVATE_KEY' });
  if (allowToken && env.GITHUB_TOKEN) return { kind: 'token', token: env.GITHUB_TOKEN };
  if (env.APP_ID) throw new ConfigError('APP_ID is set but PRIVATE_KEY or PRIVATE_KEY_PATH is missing');
  throw new ConfigError(
    allowToken
      ? 'GitHub credentials missing: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), or GITHUB_TOKEN'
      : "this command needs the App's credentials: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH); GITHUB_TOKEN cannot call the /app endpoints",
  );
}

/**
 * A webhook or signal secret as stored in Secrets Manager: the plain secret, or JSON
 * `{"secret": "…", "previous": "…"}` while a rotation is under way.
 */
export function parseRotatingSecret(value: string, name: string): string[] {
  const trimmed = value.trim();
  if (trimmed.startsWith('{')) {
    let doc: { secret?: unknown; previous?: unknown };
    try {
      doc = JSON.parse(trimmed) as typeof doc;
    } catch {
      throw new ConfigError(`${name}: looks like JSON but does not parse`);
    }
    if (typeof doc.secret !== 'string' || doc.secret === '') throw new ConfigError(`${name}: "secret" is missing`);
    if (doc.previous !== undefined && typeof doc.previous !== 'string') {
      throw new ConfigError(`${name}: "previous" must be a string`);
    }
    return [doc.secret, ...(doc.previous ? [doc.previous] : [])];
  }
  if (trimmed === '') throw new ConfigError(`${name}: the secret is empty`);
  return [trimmed];
}

/** The GitHub App secret: JSON `{"appId": "…", "privateKey": "<PEM>"}` (or a `token` for trials). */
export function parseAppSecret(value: string, name: string): GitHubCredentials {
  let doc: { appId?: unknown; privateKey?: unknown; token?: unknown };
  try {
    doc = JSON.parse(value) as typeof doc;
  } catch {
    throw new ConfigError(`${name}: expected JSON {"appId": "…", "privateKey": "…"}`);
  }
  if (typeof doc.token === 'string' && doc.token !== '') return { kind: 'token', token: doc.token };
  return appCredentials(doc.appId, doc.privateKey, { appId: `${name}: "appId"`, privateKey: `${name}: "privateKey"` });
}

/**
 * A value built from a secret and built again when the secret changes. `read` is a cached read
 * (Powertools' getSecret with a maxAge), so a rotated secret reaches a warm function within that
 * age without a restart, while an unchanged one keeps what was built (clients and their token
 * caches). A read or build that fails fails that call only, and the next call reads afresh
 * (`fresh`: past the cache), so a fixed secret is used at the next invocation.
 */
export function rebuiltOnRotation<T>(
  read: (fresh: boolean) => Promise<string>,
  build: (secret: string) => T,
): () => Promise<T> {
  let last: { readonly secret: string; readonly value: T } | undefined;
  let failed = false;
  return async () => {
    try {
      const secret = await read(failed);
      if (last?.secret !== secret) last = { secret, value: build(secret) };
      failed = false;
      return last.value;
    } catch (err) {
      failed = true;
      throw err;
    }
  };
}

/** What an operator does about an unusable App secret: said in the log line that reports it. */
export function appSecretFix(secretId: string): string {
  return (
    `put the App's credentials into the secret as JSON {"appId": "<App id>", "privateKey": "<PEM>"}: ` +
    `aws secretsmanager put-secret-value --secret-id ${secretId} --secret-string file://app-secret.json ` +
    '(the next invocation reads it again; held messages come back on their own)'
  );
}
