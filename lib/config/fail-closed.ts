import type { RepoConfig } from '../model.js';
import { REPO_SETTING_NAMES, repoFieldOf } from './repo-settings.js';
import type { FailClosedRule } from './setting.js';
import { settingOf } from './settings-schema.js';

/**
 * What a repository file with an error still decides. Its owner's intent for the broken part
 * is unknown, so nothing in it may widen what reprise does: each entry that parsed and only
 * narrows re-runs is kept, every other entry is set aside. What narrows is declared with each
 * setting in the schema (`failClosed`). A file that keeps no such entry leaves its runs alone
 * until it is fixed.
 */
export interface FailClosed {
  readonly config: RepoConfig;
  /** The narrowing entries kept, as `key: value` (empty: the run is left alone). */
  readonly kept: readonly string[];
}

/** Why a file that keeps nothing leaves its runs alone; `decide()` gives it as the `ignored` reason. */
export const LEFT_ALONE = 'each run is left alone until the file is fixed';

/** Each repository key's setting and its rule (declared with the setting: `failClosed`). */
const RULES = new Map(
  REPO_SETTING_NAMES.map((name) => {
    const s = settingOf(name);
    return [s.repoKey as string, { field: repoFieldOf(name), s, rule: s.failClosed ?? 'none' }] as const;
  }),
);

type Field = Record<string, unknown>;

/**
 * What an entry narrows, by its rule, against the settings in force: the fields it sets, or
 * undefined when it narrows nothing. `one` is the entry parsed alone; an absent field reads as
 * its setting's default.
 */
function narrowed(rule: FailClosedRule, field: string, dflt: unknown, one: Field, cfg: Field): Field | undefined {
  const got = one[field] ?? dflt;
  const now = cfg[field] ?? dflt;
  if (rule === 'lower') return (got as number) < (now as number) ? { [field]: got } : undefined;
  if (rule === 'more') {
    const added = (got as string[]).filter((g) => !(now as string[]).includes(g));
    return added.length > 0 ? { [field]: [...(now as string[]), ...added] } : undefined;
  }
  if (rule === 'fewer') {
    // An empty key (null) allows every name: it narrows nothing.
    if (one[field] === null) return undefined;
    const allowed = cfg[field] as string[] | null | undefined;
    return { [field]: allowed == null ? got : allowed.filter((w) => (got as string[]).includes(w)) };
  }
  if (rule === 'none' || 'keeps' in rule) return undefined;
  if ('to' in rule) return got === rule.to ? { [field]: got } : undefined;
  const { order } = rule;
  return order.indexOf(got as string) > order.indexOf(now as string) ? { [field]: got } : undefined;
}

/**
 * The one setting an entry narrows, or undefined when it narrows nothing (or does not parse).
 * `valid` parses one entry as a file holding it alone would; it throws when the entry is invalid.
 */
function narrowing(
  key: string,
  value: unknown,
  cfg: RepoConfig,
  valid: (raw: Record<string, unknown>) => RepoConfig,
): Partial<RepoConfig> | undefined {
  const r = RULES.get(key);
  if (r === undefined || r.rule === 'none' || (typeof r.rule === 'object' && 'keeps' in r.rule)) return undefined;
  let one: RepoConfig;
  try {
    one = valid({ [key]: value });
  } catch {
    return undefined;
  }
  return narrowed(r.rule, r.field, r.s.default, one as unknown as Field, cfg as unknown as Field) as
    Partial<RepoConfig> | undefined;
}

/** The value an entry keeps without narrowing (`report: check_run`), as its field holds it. */
function keeps(key: string, value: unknown): Partial<RepoConfig> | undefined {
  const r = RULES.get(key);
  if (r === undefined || typeof r.rule !== 'object' || !('keeps' in r.rule)) return undefined;
  return value === r.rule.keeps ? ({ [r.field]: value } as Partial<RepoConfig>) : undefined;
}

/**
 * The settings a file with an error decides with: `base`, narrowed by each of `entries` that
 * parses and narrows by its setting's rule (every occurrence of a repeated key counts, so
 * `dry_run: true` holds however often it is contradicted). A `keeps` value (`report: check_run`)
 * is kept too, so the error reaches the check run its owners asked for, but it keeps no run from
 * being left alone.
 */
export function failClosed(
  base: RepoConfig,
  entries: Iterable<readonly [string, unknown]>,
  valid: (raw: Record<string, unknown>) => RepoConfig,
): FailClosed {
  let cfg = base;
  const kept: string[] = [];
  let aside: Partial<RepoConfig> = {};
  for (const [key, value] of entries) {
    aside = { ...aside, ...keeps(key, value) };
    const narrows = narrowing(key, value, cfg, valid);
    if (!narrows) continue;
    cfg = { ...cfg, ...narrows };
    kept.push(`${key}: ${JSON.stringify(value)}`.slice(0, 200));
  }
  if (cfg.textOnlyMaxAttempts > cfg.maxAttempts) cfg = { ...cfg, textOnlyMaxAttempts: cfg.maxAttempts };
  cfg = { ...cfg, ...aside };
  if (kept.length === 0) cfg = { ...cfg, enabled: false, disabledReason: LEFT_ALONE };
  return { config: cfg, kept };
}
