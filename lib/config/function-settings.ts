import type { BreakerSettings } from '../decide/breaker.js';
import { envOf, fromEnv } from './settings-schema.js';
import { runnerNamePatternsFrom } from './signal-settings.js';
import type { Env } from './environment.js';

/*
 * Settings the intake reads besides its secret. Kept apart from `deploymentSettings` so the intake's
 * bundle never pulls in the repository-config parser or the pattern engine.
 */

/** EventBridge's bus when deployed; a JSON-lines file in the local runtime (none when unset). */
export interface EventSettings {
  /** `EVENT_BUS_NAME`: a bus name or ARN; the account's default bus unless set. */
  readonly busName: string;
  /** `EVENTS_FILE`: the local runtime appends each event here as one JSON line. */
  readonly file?: string;
}

/** Where decision events go: the bus deployed, a JSON-lines file locally. */
export function eventSettings(env: Env = process.env): EventSettings {
  const file = fromEnv(env, 'eventsFile');
  return { busName: fromEnv(env, 'eventBusName'), ...(file && { file }) };
}

/** When an installation's re-runs pause: read by the worker, the intake and the reconciler. */
export function breakerSettings(env: Env = process.env): BreakerSettings {
  return {
    minOutcomes: fromEnv(env, 'breakerMinOutcomes'),
    windowMs: fromEnv(env, 'breakerWindow') * 1000,
    lostShare: fromEnv(env, 'breakerLostSharePercent') / 100,
    coolDownMs: fromEnv(env, 'breakerCoolDown') * 1000,
    minRepositories: fromEnv(env, 'breakerMinRepositories'),
  };
}

/** What the webhook intake reads besides its secret. */
export interface IntakeSettings {
  /** The breaker's settings, for the `recovered` outcomes the intake records. */
  readonly breaker: BreakerSettings;
  readonly events: EventSettings;
  /** Patterns over runner names that yield more keys of the jobs it records (RUNNER_PRESET, RUNNER_NAME_PATTERNS). */
  readonly runnerNamePatterns: readonly string[];
}

/** The webhook intake's settings, read once per cold start. */
export function intakeSettings(env: Env = process.env): IntakeSettings {
  return {
    breaker: breakerSettings(env),
    events: eventSettings(env),
    runnerNamePatterns: runnerNamePatternsFrom(env),
  };
}

/** What each function's log and metrics read. */
export interface ObsSettings {
  /** `POWERTOOLS_LOG_LEVEL` as written: Powertools reads the level itself (unset: its default). */
  readonly logLevel: string | undefined;
  /** `POWERTOOLS_METRICS_NAMESPACE`. */
  readonly metricsNamespace: string;
}

/** The log level and metrics namespace every function's Powertools reads. */
export function obsSettings(env: Env = process.env): ObsSettings {
  return { logLevel: env[envOf('logLevel')], metricsNamespace: fromEnv(env, 'metricsNamespace') };
}
