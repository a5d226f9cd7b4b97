import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { RunnerPreset } from '../../lib/config/runner-presets.js';
import type { WebhookAccess } from '../webhook-access.js';
import type { RepriseAlarmThresholds, RepriseEksCluster } from './nested-props.js';

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
   * When the pace is saturated, how far ahead (percent of `maxWait`) one repository may reserve re-run slots.
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
   * How long a run may wait in the queue for its re-run slot before it is `expired` (1 minute to 12 hours).
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
