import { type EksClusterConfig, parseEksClusters } from './eks-clusters.js';
import { RUNNER_PRESETS } from './runner-presets.js';
import type { SignalWindow } from '../model.js';
import { fromEnv, SETTINGS } from './settings-schema.js';
import { ConfigError } from '../errors.js';
import { parseRotatingSecret } from './secrets.js';
import { parseScopedSecrets, type ScopedSecret, scopeGroup, type SignalScope } from './signal-scope.js';
import type { Env } from './environment.js';

/** The signal window when none is configured (SIGNAL_WINDOW_BEFORE_SECONDS, SIGNAL_WINDOW_AFTER_SECONDS). */
export const DEFAULT_SIGNAL_WINDOW: SignalWindow = {
  beforeMs: SETTINGS.signalWindowBefore.default * 1000,
  afterMs: SETTINGS.signalWindowAfter.default * 1000,
};

/** What the EC2 signal function reads: how long signals are kept and how runners are named. */
export interface SignalSettings {
  readonly ttlSeconds: number;
  /** EC2 tag keys whose values name runners. */
  readonly tagKeys: readonly string[];
  /** Patterns whose first group, matched on a runner name, is one more key of its signals. */
  readonly namePatterns: readonly string[];
  /** EKS clusters whose nodes' runner pods are recorded at an interruption (EKS_CLUSTERS). */
  readonly eksClusters: readonly EksClusterConfig[];
}

/** The signal intake's settings: what an agent's post is held to. */
export interface SignalIntakeSettings {
  readonly ttlSeconds: number;
  /** How far an HMAC-signed post's timestamp may be from now, in ms. */
  readonly toleranceMs: number;
  /** Whom the signal secret speaks for, unless an entry names its own scope. */
  readonly scope: SignalScope;
}

/**
 * The signal functions' settings. Kept apart from `deploymentSettings` so their bundles never
 * pull in the GitHub client or the YAML parser.
 */
export function signalSettings(env: Env): SignalSettings {
  return {
    ttlSeconds: signalTtlSecondsFrom(env),
    tagKeys: runnerTagKeysFrom(env),
    namePatterns: runnerNamePatternsFrom(env),
    eksClusters: eksClustersFrom(env),
  };
}

/** The EKS clusters of EKS_CLUSTERS, each entry checked; none when unset. */
export const eksClustersFrom = (env: Env): EksClusterConfig[] => {
  const json = fromEnv(env, 'eksClusters');
  return json === undefined ? [] : parseEksClusters(json, 'EKS_CLUSTERS');
};

/** The signal intake's settings, apart from the EC2 signal's: neither function reads the other's. */
export function signalIntakeSettings(env: Env): SignalIntakeSettings {
  return {
    ttlSeconds: signalTtlSecondsFrom(env),
    toleranceMs: signalToleranceMsFrom(env),
    scope: signalScopeFrom(env),
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

/** Whom the single signal secret speaks for (SIGNAL_SCOPE): every installation unless narrowed. */
export const signalScopeFrom = (env: Env): SignalScope => fromEnv(env, 'signalScope');

/** How far an HMAC-signed post's timestamp may be from the intake's clock (SIGNAL_TIMESTAMP_TOLERANCE_SECONDS), in ms. */
export const signalToleranceMsFrom = (env: Env): number => fromEnv(env, 'signalTimestampTolerance') * 1000;

/**
 * The local runtime's signal secrets: each `SIGNAL_SECRETS` entry with its own scope, then
 * `SIGNAL_SECRET` with `SIGNAL_SCOPE`'s.
 */
export function signalSecretsFrom(env: Env): ScopedSecret[] {
  const scoped = env.SIGNAL_SECRETS ? parseScopedSecrets(env.SIGNAL_SECRETS, 'SIGNAL_SECRETS') : [];
  const single = env.SIGNAL_SECRET ? [{ secret: env.SIGNAL_SECRET, scope: signalScopeFrom(env) }] : [];
  return [...scoped, ...single];
}

/**
 * The deployed signal secret's value: the plain secret or `{"secret", "previous"}` (both with
 * `scope`), and optionally `"scoped"`: more `<secret> <scope>` entries, as `SIGNAL_SECRETS` holds them.
 */
export function parseSignalSecretValue(value: string, name: string, scope: SignalScope): ScopedSecret[] {
  const trimmed = value.trim();
  let scoped: ScopedSecret[] = [];
  let rest = trimmed;
  if (trimmed.startsWith('{')) {
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(trimmed) as Record<string, unknown>;
    } catch {
      throw new ConfigError(`${name}: looks like JSON but does not parse`);
    }
    if (doc.scoped !== undefined) {
      if (typeof doc.scoped !== 'string') throw new ConfigError(`${name}: "scoped" must be a string of entries`);
      scoped = parseScopedSecrets(doc.scoped, `${name}: "scoped"`);
      delete doc.scoped;
    }
    if (doc.secret === undefined && doc.previous === undefined && scoped.length > 0) return scoped;
    rest = JSON.stringify(doc);
  }
  return [...scoped, ...parseRotatingSecret(rest, name).map((secret) => ({ secret, scope }))];
}

/**
 * The warning a scope deserves, if any: `group:<name>` alone names no owner, so its signals count
 * for that runner group in every installation, and every organisation has a group named `Default`.
 * (Kept here, not in signal-scope.ts, which the webhook intake's bundle holds too.)
 */
export function scopeWarning(scope: SignalScope): string | undefined {
  const group = scopeGroup(scope);
  if (group === undefined || scope.some((e) => !e.startsWith('group:'))) return undefined;
  return (
    `signal scope group:${group} names no owner: its signals count for jobs of a runner group named ` +
    `${JSON.stringify(group)} in every installation, across organisations (each has its own groups, and every ` +
    `one a "Default"); name the owners too, e.g. "my-org,group:${group}"`
  );
}
