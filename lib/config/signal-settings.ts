import { fromEnv, SETTINGS } from './settings-schema.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How long a runner signal is kept unless SIGNAL_TTL_HOURS says otherwise: a day. */
export const DEFAULT_SIGNAL_TTL_SECONDS = SETTINGS.signalTtl.default * 3600;

export interface SignalSettings {
  readonly ttlSeconds: number;
  /** EC2 tag keys whose values name runners. */
  readonly tagKeys: readonly string[];
}

/**
 * The signal functions' settings. Kept apart from `runtimeSettings` so their bundles never
 * pull in the GitHub client or the YAML parser.
 */
export function signalSettings(env: Env): SignalSettings {
  return { ttlSeconds: fromEnv(env, 'signalTtl') * 3600, tagKeys: fromEnv(env, 'runnerTagKeys') };
}
