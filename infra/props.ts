import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { compileExtraPatterns } from '../lib/classify/patterns.js';
import { WebhookAccess } from './webhook-access.js';
import { graphqlUrlFor } from '../lib/config/github-settings.js';

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
   * Extra runner-loss patterns (case-insensitive regular expressions) added to the built-in ones.
   * @default []
   */
  readonly extraPatterns?: readonly string[];
  /**
   * An optional hard ceiling on re-runs per installation in a rolling hour (`budget_exhausted` past it); 0 sets none.
   * @default 0
   */
  readonly retryBudgetPerHour?: number;
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
   * How long a run may wait in the queue for its re-run turn before it is `expired` (1 minute to 12 hours).
   * @default Duration.hours(6)
   */
  readonly maxWait?: Duration;
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
   * Bundle the AWS SDK into each function instead of using the copy the Lambda runtime provides. Pins the SDK to
   * the lock file's version at the price of larger bundles (the intake grows from about 165 KB to about 540 KB).
   * @default false
   */
  readonly bundleAwsSdk?: boolean;
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

/** Props with every default applied and every bound checked. */
export type ResolvedProps = Required<Omit<RepriseProps, 'alarmEmail' | 'logHosts' | 'githubGraphqlUrl' | 'alarms'>> & {
  readonly githubGraphqlUrl: string;
  readonly alarmEmail: string | undefined;
  readonly logHosts: readonly string[] | undefined;
  readonly alarms: Required<RepriseAlarmThresholds>;
};

/** One derivation of the GraphQL URL, shared with the runtime settings. */
export { graphqlUrlFor };

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(`Reprise: ${message}`);
}

const isInt = (n: number, min: number, max = Number.MAX_SAFE_INTEGER): boolean =>
  Number.isInteger(n) && n >= min && n <= max;

export function resolveProps(props: RepriseProps): ResolvedProps {
  const githubApiUrl = (props.githubApiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
  const a = props.alarms ?? {};
  const resolved: ResolvedProps = {
    githubApiUrl,
    githubGraphqlUrl: props.githubGraphqlUrl ?? graphqlUrlFor(githubApiUrl),
    webhookAccess: props.webhookAccess ?? WebhookAccess.httpApi(),
    maxAttempts: props.maxAttempts ?? 3,
    textOnlyMaxAttempts: props.textOnlyMaxAttempts ?? 2,
    dryRun: props.dryRun ?? false,
    requireExactSignal: props.requireExactSignal ?? false,
    extraPatterns: props.extraPatterns ?? [],
    retryBudgetPerHour: props.retryBudgetPerHour ?? 0,
    pacePerMinute: props.pacePerMinute ?? 80,
    pacePerHour: props.pacePerHour ?? 500,
    maxWait: props.maxWait ?? Duration.hours(6),
    breakerMinOutcomes: props.breakerMinOutcomes ?? 10,
    breakerWindow: props.breakerWindow ?? Duration.minutes(30),
    breakerLostSharePercent: props.breakerLostSharePercent ?? 50,
    breakerCoolDown: props.breakerCoolDown ?? Duration.minutes(30),
    reconcileInterval: props.reconcileInterval ?? Duration.minutes(5),
    stuckAfter: props.stuckAfter ?? Duration.minutes(15),
    eventBusName: props.eventBusName ?? 'default',
    logHosts: props.logHosts,
    runnerTagKeys: props.runnerTagKeys ?? [],
    signalWindowBefore: props.signalWindowBefore ?? Duration.minutes(10),
    signalWindowAfter: props.signalWindowAfter ?? Duration.minutes(5),
    signalTtl: props.signalTtl ?? Duration.hours(24),
    workerMaxConcurrency: props.workerMaxConcurrency ?? 5,
    workerBatchSize: props.workerBatchSize ?? 10,
    maxReceiveCount: props.maxReceiveCount ?? 5,
    bundleAwsSdk: props.bundleAwsSdk ?? false,
    metricsNamespace: props.metricsNamespace ?? 'Reprise',
    logLevel: props.logLevel ?? 'INFO',
    logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    alarmEmail: props.alarmEmail,
    alarms: {
      rerunsPerHour: a.rerunsPerHour ?? 30,
      rerunSharePercent: a.rerunSharePercent ?? 50,
      rerunShareMinDecisions: a.rerunShareMinDecisions ?? 10,
      signatureFailures: a.signatureFailures ?? 5,
      rateLimitRemaining: a.rateLimitRemaining ?? 500,
      oldestMessageAge: a.oldestMessageAge ?? Duration.minutes(15),
      sweepFailures: a.sweepFailures ?? 1,
      recoverySharePercent: a.recoverySharePercent ?? 50,
      recoveryShareMinOutcomes: a.recoveryShareMinOutcomes ?? 5,
    },
  };
  check(/^https:\/\/[^/\s]+/.test(resolved.githubApiUrl), `githubApiUrl must be an https URL, got ${githubApiUrl}`);
  check(isInt(resolved.maxAttempts, 1, 50), 'maxAttempts must be an integer in 1..50 (GitHub allows 50 re-runs)');
  check(isInt(resolved.textOnlyMaxAttempts, 1, resolved.maxAttempts), 'textOnlyMaxAttempts must be in 1..maxAttempts');
  check(isInt(resolved.retryBudgetPerHour, 0), 'retryBudgetPerHour must be a non-negative integer');
  check(isInt(resolved.pacePerMinute, 1), 'pacePerMinute must be a positive integer');
  check(isInt(resolved.pacePerHour, 0), 'pacePerHour must be a non-negative integer');
  check(
    isInt(resolved.maxWait.toSeconds({ integral: false }), 60, 12 * 3600),
    'maxWait must be a whole number of seconds from 1 minute to 12 hours (one deferral of the message)',
  );
  check(isInt(resolved.breakerMinOutcomes, 0), 'breakerMinOutcomes must be a non-negative integer');
  check(isInt(resolved.breakerLostSharePercent, 1, 100), 'breakerLostSharePercent must be an integer in 1..100');
  for (const [name, d] of [
    ['breakerWindow', resolved.breakerWindow],
    ['breakerCoolDown', resolved.breakerCoolDown],
  ] as const) {
    check(isInt(d.toSeconds({ integral: false }), 1), `${name} must be a whole number of seconds, at least one`);
  }
  check(
    isInt(resolved.reconcileInterval.toMinutes({ integral: false }), 1, 60),
    'reconcileInterval must be a whole number of minutes in 1..60',
  );
  check(
    isInt(resolved.stuckAfter.toMinutes({ integral: false }), 1, 24 * 60),
    'stuckAfter must be a whole number of minutes from 1 minute to 24 hours',
  );
  check(
    /^(arn:[\w-]+:events:[\w-]+:\d{12}:event-bus\/)?[\w./-]{1,256}$/.test(resolved.eventBusName),
    `eventBusName must be an event bus name or ARN, got ${resolved.eventBusName}`,
  );
  check(isInt(resolved.alarms.sweepFailures, 0), 'alarms.sweepFailures must be a non-negative integer');
  // Lambda's SQS scaling control accepts 2..1000.
  check(isInt(resolved.workerMaxConcurrency, 2, 1000), 'workerMaxConcurrency must be an integer in 2..1000');
  check(isInt(resolved.workerBatchSize, 1, 10), 'workerBatchSize must be an integer in 1..10 (FIFO limit)');
  check(isInt(resolved.maxReceiveCount, 5, 1000), 'maxReceiveCount must be an integer of at least 5');
  check(isInt(resolved.alarms.rerunsPerHour, 1), 'alarms.rerunsPerHour must be a positive integer');
  check(
    resolved.alarms.rerunSharePercent > 0 && resolved.alarms.rerunSharePercent <= 100,
    'alarms.rerunSharePercent must be in (0, 100]',
  );
  check(isInt(resolved.alarms.rerunShareMinDecisions, 1), 'alarms.rerunShareMinDecisions must be a positive integer');
  check(
    resolved.alarms.recoverySharePercent > 0 && resolved.alarms.recoverySharePercent <= 100,
    'alarms.recoverySharePercent must be in (0, 100]',
  );
  check(
    isInt(resolved.alarms.recoveryShareMinOutcomes, 1),
    'alarms.recoveryShareMinOutcomes must be a positive integer',
  );
  check(resolved.signalTtl.toSeconds() >= 3600, 'signalTtl must be at least one hour');
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
