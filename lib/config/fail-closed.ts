import type { RepoConfig } from '../model.js';

/**
 * What a repository file with an error still decides. Its owner's intent for the broken part
 * is unknown, so nothing in it may widen what reprise does: each entry that parsed and only
 * narrows re-runs is kept, every other entry is set aside. A file that keeps no such entry
 * leaves its runs alone until it is fixed.
 */
export interface FailClosed {
  readonly config: RepoConfig;
  /** The narrowing entries kept, as `key: value` (empty: the run is left alone). */
  readonly kept: readonly string[];
}

/** Why a file that keeps nothing leaves its runs alone; `decide()` gives it as the `ignored` reason. */
export const LEFT_ALONE = 'each run is left alone until the file is fixed';

const NARROWING_KEYS = new Set([
  'enabled',
  'dry_run',
  'require_exact_signal',
  'rerun_all_fallback',
  'max_attempts',
  'text_only_max_attempts',
  'ignore_jobs',
  'workflows',
  'stale_check',
  'merge_queue',
  'max_requeues',
  'platform_errors',
]);

const STALE_ORDER: readonly RepoConfig['staleCheck'][] = ['off', 'pull_request', 'branch', 'all'];

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
  if (!NARROWING_KEYS.has(key)) return undefined;
  let one: RepoConfig;
  try {
    one = valid({ [key]: value });
  } catch {
    return undefined;
  }
  switch (key) {
    case 'enabled':
      return one.enabled ? undefined : { enabled: false };
    case 'dry_run':
      return one.dryRun ? { dryRun: true } : undefined;
    case 'require_exact_signal':
      return one.requireExactSignal ? { requireExactSignal: true } : undefined;
    case 'rerun_all_fallback':
      return one.rerunAllFallback ? undefined : { rerunAllFallback: false };
    case 'max_attempts':
      return one.maxAttempts < cfg.maxAttempts ? { maxAttempts: one.maxAttempts } : undefined;
    case 'text_only_max_attempts':
      return one.textOnlyMaxAttempts < cfg.textOnlyMaxAttempts
        ? { textOnlyMaxAttempts: one.textOnlyMaxAttempts }
        : undefined;
    case 'ignore_jobs': {
      const added = one.ignoreJobs.filter((g) => !cfg.ignoreJobs.includes(g));
      return added.length > 0 ? { ignoreJobs: [...cfg.ignoreJobs, ...added] } : undefined;
    }
    case 'workflows': {
      if (one.workflows === null) return undefined;
      const allowed = cfg.workflows === null ? one.workflows : cfg.workflows.filter((w) => one.workflows!.includes(w));
      return { workflows: allowed };
    }
    case 'stale_check':
      return STALE_ORDER.indexOf(one.staleCheck) > STALE_ORDER.indexOf(cfg.staleCheck)
        ? { staleCheck: one.staleCheck }
        : undefined;
    // Leaving merge-group runs alone narrows; a lower count of re-enqueues narrows too.
    case 'merge_queue':
      return one.mergeQueue === 'off' ? { mergeQueue: 'off' } : undefined;
    // Leaving platform failures alone narrows; `rerun` widens and is set aside.
    case 'platform_errors':
      return one.platformErrors === 'leave' ? { platformErrors: 'leave' } : undefined;
    case 'max_requeues':
      return (one.maxRequeues ?? 1) < (cfg.maxRequeues ?? 1) ? { maxRequeues: one.maxRequeues! } : undefined;
    default:
      return undefined;
  }
}

/**
 * The settings a file with an error decides with: `base`, narrowed by each of `entries` that
 * parses and narrows (every occurrence of a repeated key counts, so `dry_run: true` holds
 * however often it is contradicted). `report: check_run` is kept too, so the error reaches the
 * check run its owners asked for, but it keeps no run from being left alone.
 */
export function failClosed(
  base: RepoConfig,
  entries: Iterable<readonly [string, unknown]>,
  valid: (raw: Record<string, unknown>) => RepoConfig,
): FailClosed {
  let cfg = base;
  const kept: string[] = [];
  let report = false;
  for (const [key, value] of entries) {
    if (key === 'report' && value === 'check_run') report = true;
    const narrowed = narrowing(key, value, cfg, valid);
    if (!narrowed) continue;
    cfg = { ...cfg, ...narrowed };
    kept.push(`${key}: ${JSON.stringify(value)}`.slice(0, 200));
  }
  if (cfg.textOnlyMaxAttempts > cfg.maxAttempts) cfg = { ...cfg, textOnlyMaxAttempts: cfg.maxAttempts };
  if (report) cfg = { ...cfg, report: 'check_run' };
  if (kept.length === 0) cfg = { ...cfg, enabled: false, disabledReason: LEFT_ALONE };
  return { config: cfg, kept };
}
