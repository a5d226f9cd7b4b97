import type { Duration } from 'aws-cdk-lib';
import type { SettingName, SettingValues, SETTINGS, TimeUnit, ValueOf } from '../../lib/config/settings-schema.js';
import type { RepriseAlarmThresholds } from './nested-props.js';
import type { RepriseProps } from './reprise-props.js';

/**
 * The props as the settings schema declares them: a type check holds {@link RepriseProps} to
 * exactly the table's props and value types, and {@link ResolvedProps} is derived from both.
 */

type Table = typeof SETTINGS;
/** A setting's prop, top level or in `alarms`. */
type TopName<K extends SettingName> = Table[K]['prop'] extends infer P extends string
  ? P extends `${string}.${string}`
    ? never
    : P
  : never;
type AlarmName<K extends SettingName> = Table[K]['prop'] extends `alarms.${infer P}` ? P : never;
/** A setting's value as its prop holds it: a time is a `Duration`. */
type PropValue<K extends SettingName> = Table[K]['unit'] extends TimeUnit ? Duration : ValueOf<K>;

/** The props the schema declares, by prop name, with the table's value types. */
type TableProps = { readonly [K in SettingName as TopName<K>]?: PropValue<K> };
type TableAlarms = { readonly [K in SettingName as AlarmName<K>]?: PropValue<K> };

/** Props whose value is a CDK type (an enum of the same values, the endpoint's class) rather than the table's. */
type CdkTyped = 'logRetention' | 'removalPolicy' | 'webhookAccess' | 'eksClusters';
type Misfits<T, I> = {
  [P in keyof T]-?: P extends CdkTyped
    ? never
    : P extends keyof I
      ? NonNullable<T[P]> extends NonNullable<I[P]>
        ? never
        : P
      : P;
}[keyof T];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// The documented props are exactly the schema's, and each holds the value its setting parses to.
const propsAreTheSchemas: [
  Same<keyof TableProps, Exclude<keyof RepriseProps, 'alarms'>>,
  Same<keyof TableAlarms, keyof RepriseAlarmThresholds>,
  Same<Misfits<TableProps, RepriseProps> | Misfits<TableAlarms, RepriseAlarmThresholds>, never>,
] = [true, true, true];
void propsAreTheSchemas;

/** Props of a setting with no default: undefined when unset (the GraphQL URL is derived instead). */
type Unset = Exclude<
  { [K in SettingName]: Table[K]['default'] extends undefined ? TopName<K> : never }[SettingName],
  'githubGraphqlUrl'
>;

/** Props with every default applied and every bound checked. */
export type ResolvedProps = Required<Omit<RepriseProps, Unset | 'alarms'>> & {
  readonly [P in Unset]: RepriseProps[P];
} & {
  readonly alarms: Required<RepriseAlarmThresholds>;
  /** Every schema setting's value, in the schema's units: the functions' environments are built from it. */
  readonly settings: SettingValues;
};
