import type { Value } from './parsers.js';
import type { Setting, TimeUnit } from './setting.js';
import { SETTINGS } from './settings-table.js';
import type { Env } from './environment.js';

/**
 * The settings schema: the table (settings-table.ts), the value parsers (parsers.ts) and the
 * readers every entry point shares: one setting from the environment, its environment text, its default
 * as the docs show it.
 */

export { bool, int, list, LOG_RETENTION_DAYS, oneOf, type Parser, percent, text, url, type Value } from './parsers.js';
export { FUNCTION_NAMES, type FunctionName, type Setting, type TimeUnit } from './setting.js';
export { MAX_ATTEMPTS_LIMIT, SETTINGS } from './settings-table.js';
export * from './function-env.js';

/** A setting's name: a key of the settings table. */
export type SettingName = keyof typeof SETTINGS;
/** The type of value a setting's parser yields. */
export type ValueOf<K extends SettingName> = (typeof SETTINGS)[K] extends Setting<infer V> ? V : never;
/** What reading a setting yields: its value, or its default when unset (undefined when it has none). */
export type ReadOf<K extends SettingName> = ValueOf<K> | (typeof SETTINGS)[K]['default'];
/** Every setting's value (undefined: unset, and no default). */
export type SettingValues = { readonly [K in SettingName]: ValueOf<K> | undefined };

/** Every setting's name, in the table's order. */
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** One setting's row, widened to {@link Setting} for generic readers. */
export const settingOf = (name: SettingName): Setting => SETTINGS[name] as Setting;

/** A setting's environment variable; throws for a setting that has none. */
export function envOf(name: SettingName): string {
  const env = settingOf(name).env;
  if (env === undefined) throw new Error(`${name} has no environment variable`);
  return env;
}

/** One setting from the environment: its default when unset or empty, else its parsed value. */
export function fromEnv<K extends SettingName>(env: Env, name: K): ReadOf<K> {
  const s = settingOf(name);
  const variable = envOf(name);
  const raw = env[variable];
  if (raw === undefined || raw.trim() === '') return s.default as ReadOf<K>;
  return s.parse(raw, variable) as ReadOf<K>;
}

/** The environment variable's text for a value. */
export function toEnvValue(s: Setting, value: Value): string {
  return Array.isArray(value) ? value.join(s.envSeparator ?? ',') : String(value);
}

const SECONDS: Record<TimeUnit, number> = { seconds: 1, minutes: 60, hours: 3600 };

/** Converts a time between units (a context key in minutes for a value in seconds). */
export const convertTime = (n: number, from: TimeUnit, to: TimeUnit): number => (n * SECONDS[from]) / SECONDS[to];

/** Default shown in the docs. */
export function defaultText(s: Setting): string {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.default === undefined) return 'none';
  return Array.isArray(s.default) ? s.default.join(', ') : String(s.default);
}

/** The default in a context key's unit (`maxWaitMinutes` shows 360). */
export function contextDefaultText(s: Setting): string {
  if (typeof s.default === 'number' && s.unit && s.contextUnit) {
    return String(convertTime(s.default, s.unit, s.contextUnit));
  }
  return defaultText(s);
}
