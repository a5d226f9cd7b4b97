import { parse as parseYaml } from 'yaml';
import { compileExtraPatterns } from '../classify/patterns.js';
import type { RepoConfig } from '../model.js';
import { ConfigError } from '../errors.js';
import { MAX_ATTEMPTS_LIMIT, SETTING_NAMES, SETTINGS, settingOf } from './settings-schema.js';

export type { RepoConfig };

const S = SETTINGS;

/** `stuck_after`: whole minutes a job may wait for a runner, as the schema bounds them. */
const stuckAfter = (raw: Raw, fallback: number | undefined): number | undefined =>
  raw.stuck_after === undefined ? fallback : S.stuckAfter.parse(raw.stuck_after, 'stuck_after');

/** The built-in defaults, from the settings schema. */
export const BUILT_IN_DEFAULTS: RepoConfig = {
  enabled: S.enabled.default,
  workflows: null,
  maxAttempts: S.maxAttempts.default,
  textOnlyMaxAttempts: S.textOnlyMaxAttempts.default,
  extraPatterns: [],
  ignoreJobs: [...S.ignoreJobs.default],
  dryRun: S.dryRun.default,
  rerunAllFallback: S.rerunAllFallback.default,
  staleCheck: S.staleCheck.default,
  report: S.report.default,
  requireExactSignal: S.requireExactSignal.default,
  stuckAfterMinutes: S.stuckAfter.default,
};

type Raw = Record<string, unknown>;

const bool = (raw: Raw, key: string, fallback: boolean): boolean => {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw new ConfigError(`${key}: expected true or false, got ${JSON.stringify(v)}`);
  return v;
};

const attempts = (raw: Raw, key: string, fallback: number): number => {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_ATTEMPTS_LIMIT) {
    throw new ConfigError(`${key}: expected a whole number from 1 to ${MAX_ATTEMPTS_LIMIT}, got ${JSON.stringify(v)}`);
  }
  return v;
};

const strings = (raw: Raw, key: string): string[] | undefined => {
  const v = raw[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new ConfigError(`${key}: expected a list of strings`);
  }
  return v as string[];
};

function oneOf<T extends string>(raw: Raw, key: string, allowed: readonly T[], fallback: T): T {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v === 'boolean' && key === 'stale_check') return (v ? 'pull_request' : 'off') as T;
  if (typeof v !== 'string' || !allowed.includes(v as T)) {
    throw new ConfigError(`${key}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

/**
 * `ignore_jobs` globs are matched against every candidate job's name: held to a size whose
 * worst case (globs × name × glob length) stays small.
 */
export const IGNORE_JOBS_LIMITS = { count: 50, length: 200 } as const;

function globs(raw: Raw): string[] | undefined {
  const list = strings(raw, 'ignore_jobs');
  if (list === undefined) return undefined;
  const { count, length } = IGNORE_JOBS_LIMITS;
  if (list.length > count) throw new ConfigError(`ignore_jobs: ${list.length} globs, more than ${count}`);
  const long = list.find((g) => g.length > length);
  if (long !== undefined) {
    throw new ConfigError(`ignore_jobs: a glob of ${long.length} characters, more than ${length}`);
  }
  return list;
}

/** The keys a repository may set: those the schema gives a `.github/reprise.yml` key. */
const KNOWN_KEYS = new Set(SETTING_NAMES.map((n) => settingOf(n).repoKey).filter((k): k is string => !!k));

/** Applies one layer of snake_case settings over a base. Throws ConfigError naming the key at fault. */
export function applyConfig(base: RepoConfig, raw: Raw): RepoConfig {
  const unknown = Object.keys(raw).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length > 0) throw new ConfigError(`unknown key(s): ${unknown.join(', ')}`);
  // An empty key means "none", as an empty `workflows:` means "all".
  const extra = raw.extra_patterns === null ? [] : raw.extra_patterns;
  if (extra !== undefined && typeof extra !== 'string' && !Array.isArray(extra)) {
    throw new ConfigError('extra_patterns: expected a block of lines or a list of strings');
  }
  const cfg: RepoConfig = {
    enabled: bool(raw, 'enabled', base.enabled),
    workflows: strings(raw, 'workflows') ?? base.workflows,
    maxAttempts: attempts(raw, 'max_attempts', base.maxAttempts),
    textOnlyMaxAttempts: attempts(raw, 'text_only_max_attempts', base.textOnlyMaxAttempts),
    extraPatterns:
      extra === undefined
        ? base.extraPatterns
        : compileExtraPatterns(Array.isArray(extra) ? (strings(raw, 'extra_patterns') ?? []) : String(extra)),
    ignoreJobs: globs(raw) ?? base.ignoreJobs,
    dryRun: bool(raw, 'dry_run', base.dryRun),
    rerunAllFallback: bool(raw, 'rerun_all_fallback', base.rerunAllFallback),
    staleCheck: oneOf(raw, 'stale_check', ['off', 'pull_request', 'all'] as const, base.staleCheck),
    report: oneOf(raw, 'report', ['log', 'check_run'] as const, base.report),
    requireExactSignal: bool(raw, 'require_exact_signal', base.requireExactSignal),
  };
  const stuck = stuckAfter(raw, base.stuckAfterMinutes);
  if (stuck !== undefined) Object.assign(cfg, { stuckAfterMinutes: stuck });
  const mergeQueue =
    raw.merge_queue === undefined ? base.mergeQueue : S.mergeQueue.parse(raw.merge_queue, 'merge_queue');
  if (mergeQueue !== undefined) Object.assign(cfg, { mergeQueue });
  const requeues =
    raw.max_requeues === undefined ? base.maxRequeues : S.maxRequeues.parse(raw.max_requeues, 'max_requeues');
  if (requeues !== undefined) Object.assign(cfg, { maxRequeues: requeues });
  if (cfg.textOnlyMaxAttempts > cfg.maxAttempts) {
    return { ...cfg, textOnlyMaxAttempts: cfg.maxAttempts };
  }
  return cfg;
}

/**
 * Parses a `.github/reprise.yml`. A malformed file never crashes a decision: the caller
 * gets the base settings back together with the error to report. Only a valid `report`
 * survives from a malformed file, so the error reaches the check run its owners asked for.
 */
export function parseRepoConfig(base: RepoConfig, text: string): { config: RepoConfig; error?: string } {
  let doc: unknown;
  try {
    doc = parseYaml(text);
    if (doc === null || doc === undefined) return { config: base };
    if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError('expected a mapping of settings');
    return { config: applyConfig(base, doc as Raw) };
  } catch (err) {
    const error = `.github/reprise.yml: ${(err as Error).message}`;
    const report = (doc as Raw | undefined)?.report;
    if (report === 'check_run' && base.report !== 'check_run') {
      return { config: { ...base, report }, error };
    }
    return { config: base, error };
  }
}

export { globMatch } from '../util/glob.js';
