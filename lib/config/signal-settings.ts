import { ConfigError } from '../errors.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How long a runner signal is kept unless SIGNAL_TTL_HOURS says otherwise: a day. */
export const DEFAULT_SIGNAL_TTL_SECONDS = 24 * 60 * 60;

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
  const raw = env.SIGNAL_TTL_HOURS;
  let ttlSeconds = DEFAULT_SIGNAL_TTL_SECONDS;
  if (raw !== undefined && raw !== '') {
    const hours = Number(raw);
    if (!Number.isInteger(hours) || hours < 1) {
      throw new ConfigError(`SIGNAL_TTL_HOURS: expected a whole number ≥ 1, got "${raw}"`);
    }
    ttlSeconds = hours * 3600;
  }
  const tagKeys = (env.RUNNER_TAG_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  return { ttlSeconds, tagKeys };
}
