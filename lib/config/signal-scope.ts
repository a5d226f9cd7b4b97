import { createHash } from 'node:crypto';
import { ConfigError } from '../errors.js';
import type { Parser } from './parsers.js';

/**
 * Whom a signal secret may speak for: owners (organisation or user logins) and installation ids,
 * or every installation (`*`), or one runner group (`group:<name>`), alone or narrowing owners.
 * A signal posted with a secret carries the secret's scope, and counts only for jobs in it.
 */
export type SignalScope = readonly string[];

/** Every installation: the single `SIGNAL_SECRET`'s scope unless `SIGNAL_SCOPE` narrows it. */
export const ANY_OWNER: SignalScope = ['*'];

/**
 * A short, stable name of a scope for record keys: the same owners in any order give the same
 * tag, and another scope another tag, so one scope's record never stands in for another's.
 */
export const scopeTag = (scope: SignalScope): string =>
  createHash('sha256')
    .update([...new Set(scope)].sort().join('\n'))
    .digest('hex')
    .slice(0, 20);

/** A secret and the owners it may speak for. */
export interface ScopedSecret {
  readonly secret: string;
  readonly scope: SignalScope;
}

const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const INSTALLATION = /^installation:(\d{1,15})$/;
const GROUP_PREFIX = 'group:';
/** GitHub's runner group names hold spaces and most printable characters; a comma separates entries. */
const GROUP_NAME = /^[^\p{Cc},]{1,256}$/u;

/** The runner group a scope names (`group:<name>`), if any. */
export const scopeGroup = (scope: SignalScope): string | undefined =>
  scope.find((e) => e.startsWith(GROUP_PREFIX))?.slice(GROUP_PREFIX.length);

/** `group:<name>`, the name kept as GitHub spells it (the job's `runner_group_name`). */
function groupEntry(entry: string, where: string): string {
  const name = entry.slice(GROUP_PREFIX.length).trim();
  if (!GROUP_NAME.test(name)) {
    throw new ConfigError(`${where}: expected group:<runner group name>, got ${JSON.stringify(entry)}`);
  }
  return `${GROUP_PREFIX}${name}`;
}

/**
 * A scope from its text: `*`, or comma-separated owner logins and `installation:<id>` entries
 * (`acme, installation:1234`), or one `group:<name>` alone (that runner group's jobs of every
 * installation) or with owners (that group's jobs of those owners only). Logins are kept lower
 * case: GitHub's are case-insensitive.
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
  const groups = entries.filter((e) => e.startsWith(GROUP_PREFIX));
  if (groups.length > 1) throw new ConfigError(`${where}: at most one group:<name>, got ${JSON.stringify(raw)}`);
  const owners = entries.filter((e) => !e.startsWith(GROUP_PREFIX));
  return [
    ...new Set(
      owners.map((e) => {
        const inst = INSTALLATION.exec(e);
        if (inst) return `installation:${Number(inst[1])}`;
        if (!LOGIN.test(e)) {
          throw new ConfigError(`${where}: expected an owner login or installation:<id>, got ${JSON.stringify(e)}`);
        }
        return e.toLowerCase();
      }),
    ),
    ...groups.map((g) => groupEntry(g, where)),
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
  /** The runner group the job ran in (the jobs listing's `runner_group_name`); null when GitHub names none. */
  readonly runnerGroup?: string | null;
}

/**
 * True when a signal of this scope may count for a job of `owner`. No scope (EC2, older records):
 * any. A group-scoped signal counts only for a job that ran in that group (a job of no known
 * group is not one), and then only for the scope's owners when it names any.
 */
export function scopeAllows(scope: SignalScope | undefined, owner: JobOwner | undefined): boolean {
  if (scope === undefined || scope.includes('*')) return true;
  if (!owner) return false;
  const group = scopeGroup(scope);
  if (group !== undefined && owner.runnerGroup !== group) return false;
  const owners = scope.filter((e) => !e.startsWith(GROUP_PREFIX));
  return (
    owners.length === 0 ||
    owners.includes(owner.login.toLowerCase()) ||
    (owner.installationId !== null && owners.includes(`installation:${owner.installationId}`))
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
