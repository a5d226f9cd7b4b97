import { ConfigError } from '../errors.js';
import type { Parser } from './parsers.js';

/**
 * Whom a signal secret may speak for: owners (organisation or user logins) and installation ids,
 * or every installation (`*`). A signal posted with a secret carries the secret's scope, and
 * counts only for jobs of an owner in it.
 */
export type SignalScope = readonly string[];

/** Every installation: the single `SIGNAL_SECRET`'s scope unless `SIGNAL_SCOPE` narrows it. */
export const ANY_OWNER: SignalScope = ['*'];

/** A secret and the owners it may speak for. */
export interface ScopedSecret {
  readonly secret: string;
  readonly scope: SignalScope;
}

const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const INSTALLATION = /^installation:(\d{1,15})$/;

/**
 * A scope from its text: `*`, or comma-separated owner logins and `installation:<id>` entries
 * (`acme, installation:1234`). Logins are kept lower case: GitHub's are case-insensitive.
 */
export function parseSignalScope(raw: string, where: string): SignalScope {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new ConfigError(`${where}: expected \`*\` or owners, got an empty scope`);
  if (entries.includes('*')) {
    if (entries.length > 1) throw new ConfigError(`${where}: \`*\` stands alone, got ${JSON.stringify(raw)}`);
    return ANY_OWNER;
  }
  return [
    ...new Set(
      entries.map((e) => {
        const inst = INSTALLATION.exec(e);
        if (inst) return `installation:${Number(inst[1])}`;
        if (!LOGIN.test(e)) {
          throw new ConfigError(`${where}: expected an owner login or installation:<id>, got ${JSON.stringify(e)}`);
        }
        return e.toLowerCase();
      }),
    ),
  ];
}

/**
 * `SIGNAL_SECRETS`: one `<secret> <scope>` entry a line (or `;` between entries), e.g.
 * `s3cr3t-a acme` and `s3cr3t-b installation:42,other-org`.
 */
export function parseScopedSecrets(raw: string, where: string): ScopedSecret[] {
  const out: ScopedSecret[] = [];
  for (const [i, line] of raw.split(/[\n;]/).entries()) {
    const entry = line.trim();
    if (entry === '' || entry.startsWith('#')) continue;
    const m = /^(\S+)\s+(\S.*)$/.exec(entry);
    if (!m) throw new ConfigError(`${where}: entry ${i + 1}: expected \`<secret> <scope>\` (the secret is not shown)`);
    out.push({ secret: m[1]!, scope: parseSignalScope(m[2]!, `${where}: entry ${i + 1}`) });
  }
  return out;
}

/** The owner of a job, as the worker knows it: its repository's owner login and its installation. */
export interface JobOwner {
  readonly login: string;
  readonly installationId: number | null;
}

/** True when a signal of this scope may count for a job of `owner`. No scope (EC2, older records): any. */
export function scopeAllows(scope: SignalScope | undefined, owner: JobOwner | undefined): boolean {
  if (scope === undefined || scope.includes('*')) return true;
  if (!owner) return false;
  return (
    scope.includes(owner.login.toLowerCase()) ||
    (owner.installationId !== null && scope.includes(`installation:${owner.installationId}`))
  );
}

const scopeText = (raw: unknown, where: string): string => {
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw) && raw.every((e) => typeof e === 'string')) return raw.join(',');
  throw new ConfigError(`${where}: expected \`*\` or a list of owners, got ${JSON.stringify(raw)}`);
};

/** The settings table's parser of a scope (text or a list), canonical entries out. */
export const signalScope: Parser<string[]> = Object.assign(
  (raw: unknown, where: string) => [...parseSignalScope(scopeText(raw, where), where)],
  { typed: (raw: unknown, where: string) => [...parseSignalScope(scopeText(raw, where), where)] },
);
