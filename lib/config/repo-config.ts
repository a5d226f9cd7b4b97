import { parse as parseYaml } from 'yaml';
import { compileExtraPatterns } from '../classify/patterns.js';
import type { RepoConfig } from '../model.js';
import { ConfigError } from '../errors.js';

export type { RepoConfig };

export const BUILT_IN_DEFAULTS: RepoConfig = {
  enabled: true,
  workflows: null,
  maxAttempts: 3,
  textOnlyMaxAttempts: 2,
  extraPatterns: [],
  ignoreJobs: [],
  dryRun: false,
  rerunAllFallback: false,
  staleCheck: 'pull_request',
  report: 'log',
  requireExactSignal: false,
  stuckAfterMinutes: 15,
};

/** GitHub fails a job that waited 24 hours for a runner: a longer `stuck_after` would never report. */
const STUCK_AFTER_LIMIT = 24 * 60;

/** `stuck_after`: whole minutes a job may wait for a runner, 1 to 1440. */
const stuckAfter = (raw: Raw, fallback: number | undefined): number | undefined => {
  const v = raw.stuck_after;
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > STUCK_AFTER_LIMIT) {
    throw new ConfigError(
      `stuck_after: expected whole minutes from 1 to ${STUCK_AFTER_LIMIT}, got ${JSON.stringify(v)}`,
    );
  }
  return v;
};

/** GitHub allows at most 50 re-runs of a run. */
const MAX_ATTEMPTS_LIMIT = 50;

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

const KNOWN_KEYS = new Set([
  'enabled',
  'workflows',
  'max_attempts',
  'text_only_max_attempts',
  'extra_patterns',
  'ignore_jobs',
  'dry_run',
  'rerun_all_fallback',
  'stale_check',
  'report',
  'require_exact_signal',
  'stuck_after',
]);

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
