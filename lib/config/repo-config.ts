import { isMap, isNode, isScalar, parseDocument } from 'yaml';
import { compileExtraPatterns } from '../classify/patterns.js';
import type { RepoConfig } from '../model.js';
import { ConfigError } from '../errors.js';
import { clip, TEXT_CAPS } from '../util/clip.js';
import { failClosed } from './fail-closed.js';
import { MAX_ATTEMPTS_LIMIT, SETTING_NAMES, SETTINGS, settingOf } from './settings-schema.js';

export type { RepoConfig };

/** Where a repository (or its owner's `.github` repository) keeps its settings. */
export const CONFIG_PATH = '.github/reprise.yml';

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

/** A repository file larger than this is refused unread: its parse would cost every installation's decisions. */
export const REPO_CONFIG_MAX_BYTES = 64 * 1024;

export interface ParsedRepoConfig {
  readonly config: RepoConfig;
  /** What is wrong with the file; the config then keeps only what narrows re-runs. */
  readonly error?: string;
  /** With an error: the narrowing entries kept (empty: the runs are left alone). */
  readonly kept?: readonly string[];
}

type Entry = readonly [string, unknown];

/**
 * The file's top-level entries, in order, as far as they parsed, and its first fault. Keys
 * are checked for repeats with a set: linear in the file, where the YAML parser's own check
 * compares every pair.
 */
function readEntries(text: string): { entries: Entry[]; fault?: string } {
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  const entries: Entry[] = [];
  let fault = doc.errors[0]?.message.split('\n')[0];
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && (contents.value === null || contents.value === ''))) {
    return { entries, ...(fault !== undefined && { fault }) };
  }
  if (!isMap(contents)) return { entries, fault: fault ?? 'expected a mapping of settings' };
  const seen = new Set<string>();
  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    if (typeof key !== 'string') {
      fault ??= `a key that is not a setting name: ${JSON.stringify(String(key))}`;
      continue;
    }
    if (seen.has(key)) fault ??= `${key}: set more than once`;
    seen.add(key);
    const value: unknown = isNode(pair.value) ? pair.value.toJSON() : pair.value;
    entries.push([key, value ?? null]);
  }
  return { entries, ...(fault !== undefined && { fault }) };
}

/**
 * Parses a `.github/reprise.yml`; never throws. A file that is too large, does not parse or
 * holds an invalid entry fails closed (see `failClosed`): the error comes back with settings
 * that keep only what narrows re-runs, or that leave the runs alone.
 */
export function parseRepoConfig(base: RepoConfig, text: string): ParsedRepoConfig {
  const fail = (message: string, entries: Entry[] = []): ParsedRepoConfig => {
    const closed = failClosed(base, entries, (raw) => applyConfig(base, raw));
    return { ...closed, error: clip(`${CONFIG_PATH}: ${message}`, TEXT_CAPS.error) };
  };
  const bytes = text.length > REPO_CONFIG_MAX_BYTES ? Buffer.byteLength(text) : 0;
  if (bytes > REPO_CONFIG_MAX_BYTES) {
    return fail(`${bytes} bytes, more than the ${REPO_CONFIG_MAX_BYTES} a repository file may hold; not read`);
  }
  let read: ReturnType<typeof readEntries>;
  try {
    read = readEntries(text);
  } catch (err) {
    return fail((err as Error).message);
  }
  if (read.fault !== undefined) return fail(read.fault, read.entries);
  if (read.entries.length === 0) return { config: base };
  try {
    return { config: applyConfig(base, Object.fromEntries(read.entries)) };
  } catch (err) {
    return fail((err as Error).message, read.entries);
  }
}

export { globMatch } from '../util/glob.js';
