import { Duration } from 'aws-cdk-lib';
import { graphqlUrlFor } from '../../lib/config/github-settings.js';
import {
  type FunctionName,
  type Setting,
  type SettingValues,
  type TimeUnit,
  type Value,
  SETTING_NAMES,
  settingOf,
  toEnvValue,
} from '../../lib/config/settings-schema.js';
import { WebhookAccess } from '../webhook-access.js';
import type { ResolvedProps } from './props-schema.js';
import type { RepriseProps } from './reprise-props.js';
import { checkResolved, eksClustersSetting } from './validate.js';

/** From the props to the values: every setting read through the schema, defaults applied, checked. */

/** One derivation of the GraphQL URL, shared with the runtime settings. */
export { graphqlUrlFor };

/** A prop at a dotted path (`alarms.rerunsPerHour`). */
export function propAt(props: object, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], props);
}

/** Sets a prop at a dotted path, making the objects on the way. */
export function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let o = target;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[keys[keys.length - 1] as string] = value;
}

/** A time prop in the setting's unit. */
export function durationIn(d: Duration, unit: TimeUnit): number {
  const opts = { integral: false };
  return unit === 'seconds' ? d.toSeconds(opts) : unit === 'minutes' ? d.toMinutes(opts) : d.toHours(opts);
}

/** A setting's value as a prop: times become a `Duration`. */
export function asProp(s: Setting, value: unknown): unknown {
  if (s.unit === undefined || typeof value !== 'number') return value;
  return s.unit === 'seconds'
    ? Duration.seconds(value)
    : s.unit === 'minutes'
      ? Duration.minutes(value)
      : Duration.hours(value);
}

/** Every setting read from the props through the schema's parsers, defaults where a prop is unset. */
export function settingsFromProps(props: RepriseProps): SettingValues {
  const out: Record<string, Value | undefined> = {};
  for (const name of SETTING_NAMES) {
    const s = settingOf(name);
    let raw = s.prop && !s.custom ? propAt(props, s.prop) : undefined;
    if (raw === undefined) {
      out[name] = s.default;
      continue;
    }
    if (s.unit !== undefined) {
      if (!(raw instanceof Duration)) throw new Error(`Reprise: ${s.prop} must be a Duration`);
      raw = durationIn(raw, s.unit);
    }
    try {
      out[name] = s.parse(raw, s.prop as string);
    } catch (err) {
      throw new Error(`Reprise: ${(err as Error).message}`, { cause: err });
    }
  }
  return out as SettingValues;
}

/** The environment of one deployed function: every setting the schema says it reads. */
export function functionEnvironment(fn: FunctionName, settings: SettingValues): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of SETTING_NAMES) {
    const s = settingOf(name);
    const value = settings[name];
    if (s.env === undefined || !s.readBy.includes(fn) || value === undefined) continue;
    env[s.env] = toEnvValue(s, value);
  }
  return env;
}

export function resolveProps(props: RepriseProps): ResolvedProps {
  const parsed = settingsFromProps(props);
  const githubApiUrl = parsed.githubApiUrl as string;
  const settings: SettingValues = {
    ...parsed,
    githubGraphqlUrl: parsed.githubGraphqlUrl ?? graphqlUrlFor(githubApiUrl),
    eksClusters: eksClustersSetting(props.eksClusters),
  };
  // Each prop from its setting's value, a time as a Duration: the names and units are the table's.
  const fields: Record<string, unknown> = { alarms: {} };
  for (const name of SETTING_NAMES) {
    const s = settingOf(name);
    if (s.prop !== undefined && !s.custom) setAt(fields, s.prop, asProp(s, settings[name]));
  }
  fields.webhookAccess = props.webhookAccess ?? WebhookAccess.httpApi();
  fields.eksClusters = settings.eksClusters === undefined ? [] : JSON.parse(settings.eksClusters);
  const resolved = { ...fields, settings } as unknown as ResolvedProps;
  checkResolved(resolved, githubApiUrl);
  return resolved;
}
