import type { Parser, Value } from './parsers.js';

/** The shape of one setting of reprise: where it can be set, its default, its parser, who reads it. */

/** The deployed functions, by the name the construct gives them. */
export type FunctionName = 'worker' | 'reconciler' | 'intake' | 'signalIntake' | 'ec2Signal';
/** Every deployed function, by the name the construct gives it. */
export const FUNCTION_NAMES: readonly FunctionName[] = ['worker', 'reconciler', 'intake', 'signalIntake', 'ec2Signal'];

/** The unit a time setting is kept in; its prop is then a `Duration`. */
export type TimeUnit = 'seconds' | 'minutes' | 'hours';

/**
 * What a repository file's entry for the setting still decides when the file has an error (see
 * fail-closed.ts): an entry that parses and narrows re-runs is kept, any other is set aside.
 * - `{ to }`: the entry narrows when it sets this value (`enabled: false`);
 * - `lower`: a number below the one in force narrows (`max_attempts: 1`);
 * - `{ order }`: a value further along the order narrows (`stale_check: all` checks more runs);
 * - `more`: a list narrows by the names it adds (`ignore_jobs`);
 * - `fewer`: a list narrows to the names both allow (`workflows`; an empty key allows all);
 * - `{ keeps }`: this value is kept but narrows nothing (`report: check_run` still reports the error);
 * - `none`: nothing of it narrows; a broken file's entry is always set aside.
 */
export type FailClosedRule =
  | { readonly to: Value }
  | 'lower'
  | { readonly order: readonly string[] }
  | 'more'
  | 'fewer'
  | { readonly keeps: Value }
  | 'none';

/** One row of the settings table: where it is set, its default and parser, and who reads it. */
export interface Setting<V extends Value = Value> {
  /** Environment variable the functions and the local runtime read. */
  readonly env?: string;
  /** Construct prop (`alarms.x` for a field of `alarms`). */
  readonly prop?: string;
  /** CDK context key (`-c key=value`). */
  readonly context?: string;
  /** `.github/reprise.yml` key, where a repository may set it. */
  readonly repoKey?: string;
  /** The field of the repository settings (`RepoConfig`) it fills, when not named as the setting. */
  readonly repoField?: string;
  /** Its rule when a repository file has an error: every setting with a `repoKey` declares one. */
  readonly failClosed?: FailClosedRule;
  /** Left out of the built-in repository settings: the decision reads an absent one as the default. */
  readonly repoOmitsDefault?: true;
  /** The value's unit when it is a time: the prop is then a `Duration`. */
  readonly unit?: TimeUnit;
  /** The context key's unit, when it differs from `unit` (`maxWaitMinutes` for a value in seconds). */
  readonly contextUnit?: TimeUnit;
  /** Separator of a list in the environment. */
  readonly envSeparator?: string;
  readonly default: V | undefined;
  /** How the docs show the default when it is not a plain value. */
  readonly defaultText?: string;
  readonly parse: Parser<V>;
  /** Deployed functions that read it from their environment. */
  readonly readBy: readonly FunctionName[];
  /** Read by the local runtime (`npm start`) from its environment or `.env`. */
  readonly local: boolean;
  /** Set by the construct itself, not through the generic prop and context mapping. */
  readonly custom?: boolean;
  /** A valid value other than the default, in the setting's own unit: the parity test sets it everywhere. */
  readonly sample?: V;
  /** The values it takes, for the docs, where the doc line does not say. */
  readonly values?: string;
  /** What it does, in one line. */
  readonly doc: string;
}

/** The literal parts of an entry the derived types read: its default, repository key and field, prop, unit. */
export interface Literals<D, R, F, P, U> {
  readonly default: D;
  readonly repoKey: R;
  readonly repoField: F;
  readonly prop: P;
  readonly unit: U;
}

/**
 * Keeps an entry's literal default, repository key and field, prop and unit in its type while
 * checking it against its parser's: the repository settings' and the props' types derive from them.
 */
export const def = <
  V extends Value,
  D extends V | undefined,
  R extends string | undefined = undefined,
  F extends string | undefined = undefined,
  P extends string | undefined = undefined,
  U extends TimeUnit | undefined = undefined,
>(
  s: Setting<V> & Partial<Literals<D, R, F, P, U>> & { readonly default: D },
): Setting<V> & Literals<D, R, F, P, U> => s as Setting<V> & Literals<D, R, F, P, U>;
