import { compileExtraPatterns } from '../classify/patterns.js';
import { ConfigError } from '../errors.js';
import type { RepoConfig } from '../model.js';
import { type Setting, type SettingName, SETTING_NAMES, SETTINGS, settingOf, type ValueOf } from './settings-schema.js';

/**
 * The settings a repository file may set, derived from the schema: each entry with a
 * `.github/reprise.yml` key gives its key, its `RepoConfig` field, its default and its parser
 * (typed: a YAML file's values). Only where the file's value takes another shape than the
 * setting's does a form below say how.
 */

type Table = typeof SETTINGS;
/** The settings a repository file may set. */
export type RepoSettingName = { [K in SettingName]: Table[K]['repoKey'] extends string ? K : never }[SettingName];
type FieldOf<K extends RepoSettingName> = K extends unknown
  ? Table[K]['repoField'] extends infer F extends string
    ? F
    : K
  : never;

// Every repository setting fills a field of RepoConfig, and every field but the fail-closed note is one.
type Fields = FieldOf<RepoSettingName>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Each field holds its setting's value, but the compiled patterns.
type Misfit<K extends RepoSettingName> = K extends 'extraPatterns'
  ? never
  : ValueOf<K> extends NonNullable<RepoConfig[FieldOf<K> & keyof RepoConfig]>
    ? never
    : K;
const fieldsMatch: [Same<Fields, Exclude<keyof RepoConfig, 'disabledReason'>>, Same<Misfit<RepoSettingName>, never>] = [
  true,
  true,
];
void fieldsMatch;

/** The settings a repository file may set: those with a repository key. */
export const REPO_SETTING_NAMES = SETTING_NAMES.filter((n): n is RepoSettingName => settingOf(n).repoKey !== undefined);

/** The `RepoConfig` field a setting fills. */
export const repoFieldOf = (name: RepoSettingName): keyof RepoConfig =>
  (settingOf(name).repoField ?? name) as keyof RepoConfig;

/**
 * `ignore_jobs` globs are matched against every candidate job's name: held to a size whose
 * worst case (globs × name × glob length) stays small.
 */
export const IGNORE_JOBS_LIMITS = { count: 50, length: 200 } as const;

function boundedGlobs(globs: readonly string[], key: string): readonly string[] {
  const { count, length } = IGNORE_JOBS_LIMITS;
  if (globs.length > count) throw new ConfigError(`${key}: ${globs.length} globs, more than ${count}`);
  const long = globs.find((g) => g.length > length);
  if (long !== undefined) throw new ConfigError(`${key}: a glob of ${long.length} characters, more than ${length}`);
  return globs;
}

/** A field's value from a file's; undefined keeps the layer below. */
type Form = (raw: unknown, key: string, s: Setting) => unknown;

/** Where a file's value takes another shape than the setting's: an empty key, compiled patterns, bounded globs. */
const FORMS: Partial<Record<RepoSettingName, Form>> = {
  workflows: (raw, key, s) => (raw === null ? undefined : s.parse.typed(raw, key)),
  extraPatterns: (raw, key, s) => (raw === null ? [] : compileExtraPatterns(s.parse.typed(raw, key) as string[])),
  ignoreJobs: (raw, key, s) => (raw === null ? undefined : boundedGlobs(s.parse.typed(raw, key) as string[], key)),
  // These two have always read a quoted number too (`stuck_after: "30"`): kept so, not to fail files that work.
  stuckAfter: (raw, key, s) => s.parse(raw, key),
  maxRequeues: (raw, key, s) => s.parse(raw, key),
};

/** One file value as its field holds it, through the setting's own parser. */
export function fieldValue(name: RepoSettingName, raw: unknown): unknown {
  const s = settingOf(name);
  const key = s.repoKey as string;
  const form = FORMS[name];
  return form ? form(raw, key, s) : s.parse.typed(raw, key);
}

/** The built-in defaults: each repository setting's schema default, as its field holds it (no default: null, all). */
export const BUILT_IN_DEFAULTS: RepoConfig = Object.fromEntries(
  REPO_SETTING_NAMES.filter((n) => !settingOf(n).repoOmitsDefault).map((n) => {
    const d = settingOf(n).default;
    return [repoFieldOf(n), d === undefined ? null : fieldValue(n, d)];
  }),
) as unknown as RepoConfig;

const KNOWN_KEYS = new Set(REPO_SETTING_NAMES.map((n) => settingOf(n).repoKey as string));

/** Applies one layer of snake_case settings over a base. Throws ConfigError naming the key at fault. */
export function applyConfig(base: RepoConfig, raw: Record<string, unknown>): RepoConfig {
  const unknown = Object.keys(raw).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length > 0) throw new ConfigError(`unknown key(s): ${unknown.join(', ')}`);
  // Only the settings' fields: a note of the layer below (why it was disabled) is not carried up.
  const cfg: Record<string, unknown> = {};
  for (const name of REPO_SETTING_NAMES) {
    const field = repoFieldOf(name);
    const given = raw[settingOf(name).repoKey as string];
    const value = (given === undefined ? undefined : fieldValue(name, given)) ?? base[field];
    if (value !== undefined) cfg[field] = value;
  }
  const out = cfg as unknown as RepoConfig;
  // The text-only cap is a lower cap: never above the exact-signal one.
  return out.textOnlyMaxAttempts > out.maxAttempts ? { ...out, textOnlyMaxAttempts: out.maxAttempts } : out;
}
