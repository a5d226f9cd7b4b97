import { ConfigError } from '../errors.js';
import { isRunnerPreset, RUNNER_PRESET_NAMES, RUNNER_PRESETS } from './runner-presets.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How long a runner signal is kept unless SIGNAL_TTL_HOURS says otherwise: a day. */
export const DEFAULT_SIGNAL_TTL_SECONDS = 24 * 60 * 60;

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
  // RUNNER_PRESET names the provisioner; its tag keys and name patterns add to any given by hand.
  const presetName = env.RUNNER_PRESET?.trim() || undefined;
  if (presetName !== undefined && !isRunnerPreset(presetName)) {
    throw new ConfigError(`RUNNER_PRESET: expected one of ${RUNNER_PRESET_NAMES.join(', ')}, got "${presetName}"`);
  }
  const preset = presetName === undefined ? undefined : RUNNER_PRESETS[presetName];
  const namePatterns = (env.RUNNER_NAME_PATTERNS ?? '')
    .split('\n')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const p of namePatterns) {
    try {
      new RegExp(p);
    } catch (err) {
      throw new ConfigError(`RUNNER_NAME_PATTERNS: ${(err as Error).message}`);
    }
  }
  return {
    ttlSeconds,
    tagKeys: [...new Set([...(preset?.tagKeys ?? []), ...tagKeys])],
    namePatterns: [...new Set([...(preset?.namePatterns ?? []), ...namePatterns])],
  };
}
