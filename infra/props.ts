import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { compileExtraPatterns } from '../lib/classify/patterns.js';
import { WebhookAccess } from './webhook-access.js';
import type { RunnerPreset } from '../lib/config/runner-presets.js';
import { parseEksClusters } from '../lib/config/eks-clusters.js';
import { graphqlUrlFor } from '../lib/config/github-settings.js';
import {
  type FunctionName,
  type Setting,
  type SettingName,
  type SettingValues,
  type TimeUnit,
  type Value,
  type ValueOf,
  SETTING_NAMES,
  SETTINGS,
  settingOf,
  toEnvValue,
} from '../lib/config/settings-schema.js';

/** Alarm thresholds. Every alarm notifies the stack's SNS topic. */
export interface RepriseAlarmThresholds {
  /**
   * Re-runs (`retried` + `retried_all`) in one hour above which the alarm fires.
   * @default 30
   */
  readonly rerunsPerHour?: number;
  /**
   * Share of decided runs that were re-run (or would be, in dry run), in percent, above which the alarm fires.
   * @default 50
   */
  readonly rerunSharePercent?: number;
  /**
   * Decided runs per hour needed before the share alarm may fire, so two runs with one re-run do not page anyone.
   * @default 10
   */
  readonly rerunShareMinDecisions?: number;
  /**
   * Webhook signature failures in five minutes above which the alarm fires (wrong secret or forged deliveries).
   * @default 5
   */
  readonly signatureFailures?: number;
  /**
   * GitHub rate limit remaining (lowest sample in five minutes) below which the alarm fires.
   * @default 500
   */
  readonly rateLimitRemaining?: number;
  /**
   * Age of the oldest message in the work queue above which the alarm fires.
   * @default Duration.minutes(15)
   */
  readonly oldestMessageAge?: Duration;
  /**
   * Share of re-run attempts that recovered (ended green) in an hour, in percent, below which the alarm fires.
   * @default 50
   */
  readonly recoverySharePercent?: number;
  /**
   * Re-run outcomes per hour needed before the recovery-share alarm may fire.
   * @default 5
   */
  readonly recoveryShareMinOutcomes?: number;
  /**
   * Failed reconciler sweeps in 15 minutes above which the alarm fires (one failed sweep is retried by the next).
   * @default 1
   */
  readonly sweepFailures?: number;
}

/** An EKS cluster whose nodes run runner pods (Actions Runner Controller): see docs/signals.md, Kubernetes. */
export interface RepriseEksCluster {
  /** The cluster's name: the construct maps the EC2 signal function's role into it with an access entry. */
  readonly name: string;
  /**
   * Label selector of the runner pods.
   * @default 'app.kubernetes.io/component=runner' - every runner pod of Actions Runner Controller
   */
  readonly runnerSelector?: string;
  /**
   * The namespaces the runner pods run in: the access entry's view policy is scoped to them.
   * @default - the whole cluster
   */
  readonly namespaces?: readonly string[];
  /**
   * Whether the construct maps the role into the cluster with an access entry; `false` for a cluster whose
   * authentication mode is `CONFIG_MAP`, where the role is mapped in `aws-auth` instead (docs/signals.md).
   * @default true
   */
  readonly accessEntry?: boolean;
}

/** Properties of the {@link Reprise} construct. */
export interface RepriseProps {
  /**
   * GitHub REST API base URL: `https://api.github.com`, or `https://HOST/api/v3` for GitHub Enterprise Server.
   * @default 'https://api.github.com'
   */
  readonly githubApiUrl?: string;
  /**
   * GitHub GraphQL endpoint.
   * @default - derived from `githubApiUrl` (`…/api/v3` becomes `…/api/graphql`, otherwise `/graphql` is appended)
   */
  readonly githubGraphqlUrl?: string;
  /**
   * How GitHub and external agents reach the intake functions.
   * @default WebhookAccess.httpApi()
   */
  readonly webhookAccess?: WebhookAccess;
  /**
   * Default cap on a run's attempts when the evidence includes an exact runner signal.
   * @default 3
   */
  readonly maxAttempts?: number;
  /**
   * Default cap on a run's attempts when the only evidence is text (annotations or logs).
   * @default 2
   */
  readonly textOnlyMaxAttempts?: number;
  /**
   * Decide and log, but never call a re-run endpoint.
   * @default false
   */
  readonly dryRun?: boolean;
  /**
   * Re-run only on an exact runner signal; text evidence alone never re-runs.
   * @default false
   */
  readonly requireExactSignal?: boolean;
  /**
   * The most `max_attempts` and `text_only_max_attempts` a repository file may set; above it the value is clamped.
   * @default 50
   */
  readonly repoMaxAttemptsCeiling?: number;
  /**
   * Whether a repository file's `extra_patterns` are used; `false` keeps only the deployment's.
   * @default true
   */
  readonly repoExtraPatterns?: boolean;
  /**
   * Extra runner-loss patterns (case-insensitive regular expressions) added to the built-in ones.
   * @default []
   */
  readonly extraPatterns?: readonly string[];
  /**
   * Job names or globs never examined (`*` matches any text), e.g. aggregate jobs that mirror their `needs`.
   * @default []
   */
  readonly ignoreJobs?: readonly string[];
  /**
   * When GitHub refuses to re-run the failed jobs of a run whose candidates were all cancelled, re-run the whole run.
   * @default false
   */
  readonly rerunAllFallback?: boolean;
  /**
   * GitHub's own platform failures (a hosted runner not provisioned or deprovisioned, a job no runner acquired,
   * an internal error): `rerun` counts them as text-only infrastructure evidence, `leave` leaves the run alone.
   * @default 'rerun'
   */
  readonly platformErrors?: 'rerun' | 'leave';
  /**
   * When an exact signal proves a running job's runner gone, end the run (`force-cancel`) and re-run
   * its failed jobs before GitHub's job lease (~10 minutes) runs out: `last_job` once no healthy job
   * still runs, `now` at once (healthy siblings are cancelled and re-run too), `off` to wait for GitHub.
   * @default 'off'
   */
  readonly earlyRecovery?: 'off' | 'last_job' | 'now';
  /**
   * Which runs are checked for staleness: `branch` checks pull-request runs and branch runs a
   * newer commit's run superseded (re-running one would join its concurrency group), `pull_request`
   * pull-request runs only.
   * @default 'branch'
   */
  readonly staleCheck?: 'branch' | 'pull_request' | 'all' | 'off';
  /**
   * Where decisions are reported: the log, or also a `reprise` check run (the App then needs `checks: write`).
   * @default 'log'
   */
  readonly report?: 'log' | 'check_run';
  /**
   * `owner/name` of the repositories reprise may re-run; runs of any other repository are `ignored`.
   * @default - every repository the App is installed on
   */
  readonly repositoryAllowList?: readonly string[];
  /**
   * How long a re-run's next attempt may stay silent before the reconciler reads the run (at least a minute).
   * @default Duration.minutes(30)
   */
  readonly lostCompletionGrace?: Duration;
  /**
   * An optional hard ceiling on re-runs per installation in a rolling hour (`budget_exhausted` past it); 0 sets none.
   * @default 0
   */
  readonly retryBudgetPerHour?: number;
  /**
   * When the pace is saturated, how far ahead (percent of `maxWait`) one repository may reserve turns.
   * @default 50
   */
  readonly paceRepositoryShare?: number;
  /**
   * Re-runs (and check-run reports) per installation and minute, shared by every worker: GitHub's secondary limit.
   * @default 80
   */
  readonly pacePerMinute?: number;
  /**
   * Re-runs (and reports) per installation in a rolling hour; 0 sets no hourly limit.
   * @default 500
   */
  readonly pacePerHour?: number;
  /**
   * Least time in ms between two of an installation's re-run and report POSTs: each process spaces its own
   * writes by it, and it is the pace's only spacing while an installation is below its limits.
   * @default 350
   */
  readonly writeSpacingMs?: number;
  /**
   * How long a run may wait in the queue for its re-run turn before it is `expired` (1 minute to 12 hours).
   * @default Duration.hours(6)
   */
  readonly maxWait?: Duration;
  /**
   * Distinct repositories whose re-runs were lost again before the installation's breaker opens.
   * @default 3
   */
  readonly breakerMinRepositories?: number;
  /**
   * Re-run outcomes of one installation within `breakerWindow` before the breaker judges them; 0 turns it off.
   * @default 10
   */
  readonly breakerMinOutcomes?: number;
  /**
   * The window of re-run outcomes the breaker judges.
   * @default Duration.minutes(30)
   */
  readonly breakerWindow?: Duration;
  /**
   * Percent of those outcomes lost again (1–100) at or above which the installation's automatic re-runs pause.
   * @default 50
   */
  readonly breakerLostSharePercent?: number;
  /**
   * How long automatic re-runs pause once the breaker opens; waiting runs are decided at its end.
   * @default Duration.minutes(30)
   */
  readonly breakerCoolDown?: Duration;
  /**
   * How often the reconciler sweeps for orphaned claims, missed deliveries and lost completions (1–60 minutes).
   * @default Duration.minutes(5)
   */
  readonly reconcileInterval?: Duration;
  /**
   * How long a job may wait for a runner before the reconciler reports it stuck (1 minute to 24 hours, whole
   * minutes); a repository's `stuck_after` overrides it.
   * @default Duration.minutes(15)
   */
  readonly stuckAfter?: Duration;
  /**
   * EventBridge bus (name or ARN) that decisions, re-run outcomes and stuck-queued jobs are published to.
   * @default 'default' - the account's default bus
   */
  readonly eventBusName?: string;
  /**
   * Hosts the worker may follow a job-log redirect to.
   * @default - the worker's built-in allow-list of GitHub log hosts
   */
  readonly logHosts?: readonly string[];
  /**
   * EC2 tag keys whose values name the runner on an instance (for fleets whose runner names do not end in the instance id).
   * @default []
   */
  readonly runnerTagKeys?: readonly string[];
  /**
   * The provisioner that starts the runners (`terraform-aws-github-runner`, `cdk-github-runners`, `runs-on`,
   * `actions-runner-controller`): fills in the tag keys and runner-name patterns that join its runners' signals to
   * their jobs (docs/signals.md). `runnerTagKeys` add to the preset's.
   * @default - none: runner names that end in the instance id, and `runnerTagKeys`
   */
  readonly runnerPreset?: RunnerPreset;
  /**
   * EKS clusters whose nodes run runner pods: an EC2 interruption of one of their nodes records a signal under the
   * name of each runner pod on it. The construct creates an access entry for the EC2 signal function's role in
   * each, with the read-only `AmazonEKSViewPolicy`, and grants it `eks:DescribeCluster` on them alone.
   * @default [] - none
   */
  readonly eksClusters?: readonly RepriseEksCluster[];
  /**
   * How long before a job's completion a runner signal still counts for it.
   * @default Duration.minutes(10)
   */
  readonly signalWindowBefore?: Duration;
  /**
   * How long after a job's completion a runner signal still counts for it.
   * @default Duration.minutes(5)
   */
  readonly signalWindowAfter?: Duration;
  /**
   * Whom the signal secret may speak for: owner logins and `installation:<id>`, or `*`.
   * @default ['*']
   */
  readonly signalScope?: readonly string[];
  /**
   * How far an HMAC-signed signal's timestamp may be from the intake's clock.
   * @default Duration.seconds(300)
   */
  readonly signalTimestampTolerance?: Duration;
  /**
   * How long runner signals are kept.
   * @default Duration.hours(24)
   */
  readonly signalTtl?: Duration;
  /**
   * Upper bound on concurrent worker invocations; bounds the request rate against GitHub.
   * @default 5
   */
  readonly workerMaxConcurrency?: number;
  /**
   * Messages per worker invocation (1–10; FIFO queues cap it at 10).
   * @default 10
   */
  readonly workerBatchSize?: number;
  /**
   * Receives before a work message moves to the dead-letter queue (at least 5).
   * @default 5
   */
  readonly maxReceiveCount?: number;
  /**
   * Bundle the AWS SDK into each function (tree-shaken, one file): a cold start loads it in about half the time
   * the runtime's copy takes, and the SDK is the lock file's version. `false` deploys the bundles that import the
   * copy the Lambda runtime provides instead (smaller, slower to load; ec2-signal always bundles its own).
   * @default true
   */
  readonly bundleAwsSdk?: boolean;
  /**
   * Create an AWS Fault Injection Service experiment template for the spot drill: it sends a spot interruption
   * (`aws:ec2:send-spot-instance-interruptions`, two minutes' notice) to one running spot instance tagged
   * `reprise-spot-drill=true`, the tag the operator puts on a staging runner. Its role may send that
   * interruption to such instances only. Nothing runs until the operator starts the experiment.
   * @default false
   */
  readonly spotDrill?: boolean;
  /**
   * CloudWatch namespace of the functions' EMF metrics.
   * @default 'Reprise'
   */
  readonly metricsNamespace?: string;
  /**
   * Powertools log level of every function.
   * @default 'INFO'
   */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Retention of every function and access log group.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * Removal policy of the table, the secrets and the log groups. RETAIN also turns on the table's deletion protection.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * E-mail address subscribed to the alarm topic.
   * @default - no subscription; subscribe to the `AlarmTopic` yourself
   */
  readonly alarmEmail?: string;
  /**
   * Alarm thresholds.
   * @default - the defaults of each {@link RepriseAlarmThresholds} field
   */
  readonly alarms?: RepriseAlarmThresholds;
}

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

/** One derivation of the GraphQL URL, shared with the runtime settings. */
export { graphqlUrlFor };

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(`Reprise: ${message}`);
}

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

/**
 * The clusters as the function's `EKS_CLUSTERS`: a list of objects, checked by the setting's
 * parser. A deployed cluster is reached through DescribeCluster and the function's role, so an
 * endpoint, a CA file or a token (which would sit in plain sight in the environment) is refused.
 */
function eksClustersSetting(clusters: readonly RepriseEksCluster[] | undefined): string | undefined {
  if (clusters === undefined || clusters.length === 0) return undefined;
  for (const c of clusters as unknown as readonly Record<string, unknown>[]) {
    const local = ['endpoint', 'caFile', 'token'].filter((k) => c[k] !== undefined);
    if (local.length > 0) {
      throw new Error(
        `Reprise: eksClusters: ${local.join(', ')} are for the local runtime only (cluster ${String(c.name)})`,
      );
    }
  }
  try {
    return JSON.stringify(parseEksClusters(clusters, 'eksClusters'));
  } catch (err) {
    throw new Error(`Reprise: ${(err as Error).message}`, { cause: err });
  }
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
  check(/^https:\/\/[^/\s]+/.test(resolved.githubApiUrl), `githubApiUrl must be an https URL, got ${githubApiUrl}`);
  check(resolved.textOnlyMaxAttempts <= resolved.maxAttempts, 'textOnlyMaxAttempts must be in 1..maxAttempts');
  for (const p of resolved.extraPatterns) {
    if (/[\r\n]/.test(p)) throw new Error('Reprise: an extra pattern cannot contain a line break');
  }
  // The same compiler the worker uses: what it would refuse fails the synth instead.
  try {
    compileExtraPatterns(resolved.extraPatterns);
  } catch (err) {
    throw new Error(`Reprise: extraPatterns holds an invalid regular expression: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return resolved;
}
