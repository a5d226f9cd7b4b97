import { RUNNER_PRESETS } from './runner-presets.js';
import type { SignalWindow } from '../model.js';
import { fromEnv, SETTINGS } from './settings-schema.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The signal window when none is configured (SIGNAL_WINDOW_BEFORE_SECONDS, SIGNAL_WINDOW_AFTER_SECONDS). */
export const DEFAULT_SIGNAL_WINDOW: SignalWindow = {
  beforeMs: SETTINGS.signalWindowBefore.default * 1000,
  afterMs: SETTINGS.signalWindowAfter.default * 1000,
};

export interface SignalSettings {
  readonly ttlSeconds: number;
  /** EC2 tag keys whose values name runners. */
  readonly tagKeys: readonly string[];
  /** Patterns whose first group, matched on a runner name, is one more key of its signals. */
  readonly namePatterns: readonly string[];
}

/**
 * The signal functions' settings. Kept apart from `runtimeSettings` so their bundles never
 * pull in the GitHub client or the YAML parser.
 */
export function signalSettings(env: Env): SignalSettings {
  return {
    ttlSeconds: signalTtlSecondsFrom(env),
    tagKeys: runnerTagKeysFrom(env),
    namePatterns: runnerNamePatternsFrom(env),
  };
}

// RUNNER_PRESET names the provisioner; its tag keys and name patterns add to any given by hand.
const presetOf = (env: Env) => {
  const name = fromEnv(env, 'runnerPreset');
  return name === undefined ? undefined : RUNNER_PRESETS[name];
};

/** How long a runner signal is kept (SIGNAL_TTL_HOURS), in seconds. */
export const signalTtlSecondsFrom = (env: Env): number => fromEnv(env, 'signalTtl') * 3600;

/** EC2 tag keys whose values name runners: only the EC2 signal function (and the local runtime) reads them. */
export const runnerTagKeysFrom = (env: Env): string[] => [
  ...new Set([...(presetOf(env)?.tagKeys ?? []), ...fromEnv(env, 'runnerTagKeys')]),
];

/** Patterns whose first group, matched on a runner name, is one more key of its signals. */
export const runnerNamePatternsFrom = (env: Env): string[] => [
  ...new Set([...(presetOf(env)?.namePatterns ?? []), ...fromEnv(env, 'runnerNamePatterns')]),
];
