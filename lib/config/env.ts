import type { BreakerSettings } from '../decide/breaker.js';
import { ConfigError } from '../errors.js';
import type { SignalWindow } from '../model.js';
import { DEFAULT_LOG_WINDOW_BYTES, graphqlUrlFor, logHostsFor } from './github-settings.js';
import type { RepoConfig } from './repo-config.js';
import { applyConfig, BUILT_IN_DEFAULTS } from './repo-config.js';
import { signalSettings } from './signal-settings.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A runner signal counts for a job that ended up to 10 minutes after it, or 5 minutes before. */
const SIGNAL_WINDOW_SECONDS = { before: 600, after: 300 } as const;

/** The reconciler's cadence and bounds. */
export interface ReconcileSettings {
  /** Local runtime timer; 0 turns it off (the deployed reconciler runs on a schedule). */
  readonly intervalSeconds: number;
  /** How long a re-run's next attempt may stay silent before the reconciler polls it. */
  readonly completionGraceSeconds: number;
  /** Ledger scan pages and delivery pages read per sweep. */
  readonly pagesPerSweep: number;
}

/** The shared pace of re-runs (and reports) per installation, and how long a run may wait for its turn. */
export interface PaceSettings {
  readonly perMinute: number;
  /** 0: no hourly limit. */
  readonly perHour: number;
  readonly maxWaitMs: number;
}

/** GitHub's guidance for content-generating requests; a run waits its turn at most 6 hours. */
export const PACE_DEFAULTS = { perMinute: 80, perHour: 500, maxWaitSeconds: 6 * 3600 } as const;

/** Settings of the deployment, parsed and validated once per cold start. */
export interface RuntimeSettings {
  readonly apiUrl: string;
  readonly graphqlUrl: string;
  readonly defaults: RepoConfig;
  readonly signalWindow: SignalWindow;
  readonly signalTtlSeconds: number;
  readonly logHosts: readonly string[];
  readonly logWindowBytes: number;
  /** An optional hard ceiling on re-runs per installation and hour; 0 (the default) sets none. */
  readonly retryBudgetPerHour: number;
  readonly pace: PaceSettings;
  /** When an installation's automatic re-runs pause because they keep being lost. */
  readonly breaker: BreakerSettings;
  readonly reconcile: ReconcileSettings;
  readonly repositoryAllowList?: readonly string[];
  readonly runnerTagKeys: readonly string[];
}

const int = (env: Env, key: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`${key}: expected a whole number ${range}, got "${raw}"`);
  }
  return n;
};

const flag = (env: Env, key: string): boolean | undefined => {
  const raw = env[key]?.toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`${key}: expected true or false, got "${env[key]}"`);
};

const list = (env: Env, key: string): string[] | undefined => {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
};

function url(env: Env, key: string, fallback: string): string {
  const raw = env[key] || fallback;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    throw new ConfigError(`${key}: expected an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** The deployment's decision defaults, from the same keys a repository file uses. */
function decisionDefaults(env: Env): RepoConfig {
  const raw: Record<string, unknown> = {};
  const set = (k: string, v: unknown): void => {
    if (v !== undefined) raw[k] = v;
  };
  set('max_attempts', env.MAX_ATTEMPTS ? int(env, 'MAX_ATTEMPTS', 3, 1) : undefined);
  set('text_only_max_attempts', env.TEXT_ONLY_MAX_ATTEMPTS ? int(env, 'TEXT_ONLY_MAX_ATTEMPTS', 2, 1) : undefined);
  set('dry_run', flag(env, 'DRY_RUN'));
  set('require_exact_signal', flag(env, 'REQUIRE_EXACT_SIGNAL'));
  set('rerun_all_fallback', flag(env, 'RERUN_ALL_FALLBACK'));
  set('stale_check', env.STALE_CHECK || undefined);
  set('report', env.REPORT || undefined);
  set('extra_patterns', env.EXTRA_PATTERNS || undefined);
  set('ignore_jobs', list(env, 'IGNORE_JOBS'));
  try {
    return applyConfig(BUILT_IN_DEFAULTS, raw);
  } catch (err) {
    throw new ConfigError(`deployment defaults: ${(err as Error).message}`);
  }
}

/** ≥ 10 re-run outcomes in 30 minutes with ≥ 50 % lost again pause re-runs for 30 minutes; 0 outcomes turns it off. */
export function breakerSettings(env: Env = process.env): BreakerSettings {
  const share = int(env, 'BREAKER_LOST_SHARE_PERCENT', 50, 1);
  if (share > 100) throw new ConfigError(`BREAKER_LOST_SHARE_PERCENT: expected 1..100, got "${share}"`);
  return {
    minOutcomes: int(env, 'BREAKER_MIN_OUTCOMES', 10),
    windowMs: int(env, 'BREAKER_WINDOW_SECONDS', 1800, 1) * 1000,
    lostShare: share / 100,
    coolDownMs: int(env, 'BREAKER_COOL_DOWN_SECONDS', 1800, 1) * 1000,
  };
}

export function runtimeSettings(env: Env = process.env): RuntimeSettings {
  const apiUrl = url(env, 'GITHUB_API_URL', 'https://api.github.com');
  const allow = list(env, 'REPOSITORY_ALLOW_LIST');
  return {
    apiUrl,
    graphqlUrl: url(env, 'GITHUB_GRAPHQL_URL', graphqlUrlFor(apiUrl)),
    defaults: decisionDefaults(env),
    signalWindow: {
      beforeMs: int(env, 'SIGNAL_WINDOW_BEFORE_SECONDS', SIGNAL_WINDOW_SECONDS.before) * 1000,
      afterMs: int(env, 'SIGNAL_WINDOW_AFTER_SECONDS', SIGNAL_WINDOW_SECONDS.after) * 1000,
    },
    signalTtlSeconds: signalSettings(env).ttlSeconds,
    logHosts: logHostsFor(apiUrl, list(env, 'LOG_HOSTS')),
    logWindowBytes: int(env, 'LOG_WINDOW_BYTES', DEFAULT_LOG_WINDOW_BYTES, 1024),
    retryBudgetPerHour: int(env, 'RETRY_BUDGET_PER_HOUR', 0),
    pace: {
      perMinute: int(env, 'PACE_PER_MINUTE', PACE_DEFAULTS.perMinute, 1),
      perHour: int(env, 'PACE_PER_HOUR', PACE_DEFAULTS.perHour),
      // One deferral of the message covers the wait: SQS hides a message at most 12 hours.
      maxWaitMs: int(env, 'MAX_WAIT_SECONDS', PACE_DEFAULTS.maxWaitSeconds, 60, 12 * 3600) * 1000,
    },
    breaker: breakerSettings(env),
    reconcile: {
      intervalSeconds: int(env, 'RECONCILE_INTERVAL_SECONDS', 60),
      completionGraceSeconds: int(env, 'LOST_COMPLETION_GRACE_SECONDS', 1800),
      pagesPerSweep: int(env, 'RECONCILE_PAGES_PER_SWEEP', 4, 1),
    },
    ...(allow && { repositoryAllowList: allow }),
    runnerTagKeys: signalSettings(env).tagKeys,
  };
}

/** Webhook secrets in the order to try them: current, then previous during a rotation. */
export const webhookSecretsFrom = (env: Env): string[] =>
  [env.WEBHOOK_SECRET, env.WEBHOOK_SECRET_PREVIOUS].filter((s): s is string => !!s);
