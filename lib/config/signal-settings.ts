import { RUNNER_PRESETS } from './runner-presets.js';
import { fromEnv, SETTINGS } from './settings-schema.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How long a runner signal is kept unless SIGNAL_TTL_HOURS says otherwise: a day. */
export const DEFAULT_SIGNAL_TTL_SECONDS = SETTINGS.signalTtl.default * 3600;

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
  // RUNNER_PRESET names the provisioner; its tag keys and name patterns add to any given by hand.
  const presetName = fromEnv(env, 'runnerPreset');
  const preset = presetName === undefined ? undefined : RUNNER_PRESETS[presetName];
  const namePatterns = fromEnv(env, 'runnerNamePatterns');
  return {
    ttlSeconds: fromEnv(env, 'signalTtl') * 3600,
    tagKeys: [...new Set([...(preset?.tagKeys ?? []), ...fromEnv(env, 'runnerTagKeys')])],
    namePatterns: [...new Set([...(preset?.namePatterns ?? []), ...namePatterns])],
  };
}
