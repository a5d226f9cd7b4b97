import { ConfigError } from './errors.js';
import type { GitHubCredentials } from '../github/client.js';

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
  const appId = typeof doc.appId === 'number' ? String(doc.appId) : doc.appId;
  if (typeof appId !== 'string' || !/^\d+$/.test(appId))
    throw new ConfigError(`${name}: "appId" must be the App's number`);
  if (typeof doc.privateKey !== 'string' || !doc.privateKey.includes('PRIVATE KEY')) {
    throw new ConfigError(`${name}: "privateKey" must be the App's PEM private key`);
  }
  return { kind: 'app', appId, privateKey: doc.privateKey.replace(/\\n/g, '\n') };
}

/** Reads required environment variables once, naming every missing one. */
export function requireEnv<K extends string>(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly K[],
): Record<K, string> {
  const missing = names.filter((n) => !env[n]);
  if (missing.length > 0) throw new ConfigError(`missing environment variable(s): ${missing.join(', ')}`);
  return Object.fromEntries(names.map((n) => [n, env[n] as string])) as Record<K, string>;
}
