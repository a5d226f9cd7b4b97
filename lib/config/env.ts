import type { BreakerSettings } from '../decide/breaker.js';
import { ConfigError } from '../errors.js';
import { breakerSettings, eventSettings, type EventSettings } from './function-settings.js';
import { fromEnv, SETTING_NAMES, settingOf } from './settings-schema.js';

export { breakerSettings, eventSettings, type EventSettings };
import type { SignalWindow } from '../model.js';
import type { RepoCeiling } from './repo-ceiling.js';
import { DEFAULT_LOG_WINDOW_BYTES, graphqlUrlFor, logHostsFor } from './github-settings.js';
import type { RepoConfig } from './repo-config.js';
import { applyConfig, BUILT_IN_DEFAULTS } from './repo-config.js';
import { runnerNamePatternsFrom, runnerTagKeysFrom, signalTtlSecondsFrom } from './signal-settings.js';
import type { Env } from './environment.js';

/** The reconciler's cadence and bounds. */
export interface ReconcileSettings {
  /** Local runtime timer; 0 turns it off (the deployed reconciler runs on a schedule). */
  readonly intervalSeconds: number;
  /** How long a re-run's next attempt may stay silent before the reconciler polls it. */
  readonly completionGraceSeconds: number;
  /** Ledger scan pages and delivery pages read per sweep (fixed). */
  readonly pagesPerSweep: number;
}

/** The shared pace of re-runs (and reports) per installation, and how long a run may wait for its slot. */
export interface PaceSettings {
  readonly perMinute: number;
  /** 0: no hourly limit. */
  readonly perHour: number;
  /** Least time between two of an installation's POSTs: the write spacing of each process, and of the slots. */
  readonly spacingMs: number;
  readonly maxWaitMs: number;
  /** While saturated, how far ahead one repository may reserve slots, as a share of `maxWaitMs`. */
  readonly repositoryShare: number;
}

/**
 * Every setting of the deployment's processes, parsed and validated once per cold start: each
 * function reads its part (WorkerSettings, ReconcilerSettings), the local runtime and the CLI all of it.
 */
export interface DeploymentSettings {
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
  /** Receives before the queue moves a message to the dead-letter queue. */
  readonly maxReceiveCount: number;
  readonly repositoryAllowList?: readonly string[];
  readonly runnerTagKeys: readonly string[];
  /** Patterns over runner names that yield more keys of their signals (RUNNER_PRESET, RUNNER_NAME_PATTERNS). */
  readonly runnerNamePatterns: readonly string[];
  /** Where decisions, re-run outcomes and stuck-queued jobs are published. */
  readonly events: EventSettings;
  /** What a repository file may raise. */
  readonly repoCeiling: RepoCeiling;
}

/** Read by no one and needed by no one: fixed here rather than offered as settings. */
export const RECONCILE_PAGES_PER_SWEEP = 4;

/** The deployment's decision defaults, from the settings a repository file may also set. */
function decisionDefaults(env: Env): RepoConfig {
  const raw: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const s = settingOf(name);
    if (s.repoKey === undefined || s.env === undefined) continue;
    const raw_ = env[s.env];
    if (raw_ === undefined || raw_.trim() === '') continue;
    raw[s.repoKey] = s.parse(raw_, s.env);
  }
  try {
    return applyConfig(BUILT_IN_DEFAULTS, raw);
  } catch (err) {
    throw new ConfigError(`deployment defaults: ${(err as Error).message}`);
  }
}

/** What the worker reads: every setting of a decision, and nothing of the reconciler or the EC2 signals. */
export type WorkerSettings = Omit<DeploymentSettings, 'runnerTagKeys' | 'reconcile'>;

/** What the deployed reconciler reads: where GitHub is, the decision defaults, the pace, the breaker, its bounds. */
export type ReconcilerSettings = Pick<
  DeploymentSettings,
  'apiUrl' | 'graphqlUrl' | 'defaults' | 'breaker' | 'events'
> & {
  readonly pace: Pick<PaceSettings, 'perMinute' | 'perHour' | 'spacingMs'>;
  readonly reconcile: ReconcileSettings;
};

const github = (env: Env) => {
  const apiUrl = fromEnv(env, 'githubApiUrl');
  return { apiUrl, graphqlUrl: fromEnv(env, 'githubGraphqlUrl') ?? graphqlUrlFor(apiUrl) };
};

/** Each function reads its own settings once per cold start: the construct gives it exactly those (readBy). */
export function workerSettings(env: Env = process.env): WorkerSettings {
  const { apiUrl, graphqlUrl } = github(env);
  const allow = fromEnv(env, 'repositoryAllowList');
  return {
    apiUrl,
    graphqlUrl,
    defaults: decisionDefaults(env),
    signalWindow: {
      beforeMs: fromEnv(env, 'signalWindowBefore') * 1000,
      afterMs: fromEnv(env, 'signalWindowAfter') * 1000,
    },
    signalTtlSeconds: signalTtlSecondsFrom(env),
    logHosts: logHostsFor(apiUrl, fromEnv(env, 'logHosts')),
    logWindowBytes: DEFAULT_LOG_WINDOW_BYTES,
    retryBudgetPerHour: fromEnv(env, 'retryBudgetPerHour'),
    pace: {
      perMinute: fromEnv(env, 'pacePerMinute'),
      perHour: fromEnv(env, 'pacePerHour'),
      spacingMs: fromEnv(env, 'writeSpacing'),
      maxWaitMs: fromEnv(env, 'maxWait') * 1000,
      repositoryShare: fromEnv(env, 'paceRepositoryShare') / 100,
    },
    breaker: breakerSettings(env),
    maxReceiveCount: fromEnv(env, 'maxReceiveCount'),
    ...(allow && { repositoryAllowList: allow }),
    runnerNamePatterns: runnerNamePatternsFrom(env),
    events: eventSettings(env),
    repoCeiling: {
      maxAttempts: fromEnv(env, 'repoMaxAttemptsCeiling'),
      extraPatterns: fromEnv(env, 'repoExtraPatterns'),
    },
  };
}

/**
 * The deployed reconciler's settings. It loads repositories' configuration (stuck-queued
 * reports), so it reads the decision defaults (`REPORT` among them) as the worker does.
 */
export function reconcilerSettings(env: Env = process.env): ReconcilerSettings {
  return {
    ...github(env),
    defaults: decisionDefaults(env),
    pace: {
      perMinute: fromEnv(env, 'pacePerMinute'),
      perHour: fromEnv(env, 'pacePerHour'),
      spacingMs: fromEnv(env, 'writeSpacing'),
    },
    breaker: breakerSettings(env),
    // The schedule sets the cadence; the local timer's interval is not a deployed setting.
    reconcile: {
      intervalSeconds: 0,
      completionGraceSeconds: fromEnv(env, 'lostCompletionGrace'),
      pagesPerSweep: RECONCILE_PAGES_PER_SWEEP,
    },
    events: eventSettings(env),
  };
}

/** Every setting of a deployment, read at once: by the local runtime (one process runs every part) and the CLI. */
export function deploymentSettings(env: Env = process.env): DeploymentSettings {
  return {
    ...workerSettings(env),
    runnerTagKeys: runnerTagKeysFrom(env),
    reconcile: {
      intervalSeconds: fromEnv(env, 'localReconcileInterval'),
      completionGraceSeconds: fromEnv(env, 'lostCompletionGrace'),
      pagesPerSweep: RECONCILE_PAGES_PER_SWEEP,
    },
  };
}

/** Webhook secrets in the order to try them: current, then previous during a rotation. */
export const webhookSecretsFrom = (env: Env): string[] =>
  [env.WEBHOOK_SECRET, env.WEBHOOK_SECRET_PREVIOUS].filter((s): s is string => !!s);
