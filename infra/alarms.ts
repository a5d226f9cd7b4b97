import { Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  Stats,
  TreatMissingData,
  type AlarmProps,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { RepriseMetrics } from './metrics.js';
import { acknowledge } from './nag.js';
import type { RepriseAlarmThresholds } from './props/nested-props.js';

export interface RepriseAlarmsProps {
  readonly metrics: RepriseMetrics;
  readonly thresholds: Required<RepriseAlarmThresholds>;
  /** Every function, by a short name used in alarm descriptions. */
  readonly functions: Record<string, IFunction>;
  readonly workQueue: Queue;
  /** Dead-letter queues by a short name. */
  readonly deadLetterQueues: Record<string, Queue>;
  readonly alarmEmail: string | undefined;
  /** The EKS clusters the EC2 signal lists runner pods on: with any, their failures raise an alarm. */
  readonly eksClusters?: readonly string[];
}

/** The alarm topic and every alarm; each alarm notifies the topic on ALARM and on OK. */
export class RepriseAlarms extends Construct {
  public readonly topic: Topic;
  /** Every alarm, keyed by its construct id. */
  public readonly alarms: Record<string, Alarm> = {};

  public constructor(scope: Construct, id: string, props: RepriseAlarmsProps) {
    super(scope, id);
    const { metrics, thresholds: t } = props;
    this.topic = new Topic(this, 'AlarmTopic', { displayName: 'reprise alarms', enforceSSL: true });
    // enforceSSL writes a topic policy holding only its Deny, and that policy replaces SNS's
    // default one: without this grant CloudWatch is refused when an alarm publishes.
    const { account, partition, region } = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
        },
      }),
    );
    if (props.alarmEmail) {
      const subscription = this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
      acknowledge(
        subscription,
        'Serverless-SNSRedrivePolicy',
        'The e-mail subscription only notifies people: an undelivered e-mail leaves the alarm in ALARM state in ' +
          'CloudWatch and on the dashboard, so a dead-letter queue of lost e-mails would hold nothing to act on.',
      );
    }

    this.add('ReRunsPerHour', metrics.reruns(Duration.hours(1)), {
      threshold: t.rerunsPerHour,
      description: `More than ${t.rerunsPerHour} re-runs in an hour: a fleet-wide reclaim or a pattern that matches real failures.`,
    });
    this.add('ReRunShare', metrics.rerunShare(t.rerunShareMinDecisions, Duration.hours(1)), {
      threshold: t.rerunSharePercent,
      description:
        `More than ${t.rerunSharePercent}% of decided runs were re-run in an hour (at least ` +
        `${t.rerunShareMinDecisions} decided): check the extra patterns and the fleet.`,
    });
    this.add('SignatureFailures', metrics.signatureFailures(Duration.minutes(5)), {
      threshold: t.signatureFailures,
      description: `More than ${t.signatureFailures} webhook signature failures in 5 minutes: wrong webhook secret or forged deliveries.`,
    });
    this.add('RateLimitLow', metrics.rateLimitRemaining(Duration.minutes(5)), {
      threshold: t.rateLimitRemaining,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      description: `GitHub rate limit remaining fell below ${t.rateLimitRemaining}: re-runs may start failing.`,
    });
    this.add('BudgetExhausted', metrics.budgetExhausted(Duration.minutes(5)), {
      threshold: 0,
      description:
        'An installation spent its retry budget (budget_exhausted): lost runners are no longer re-run until the ' +
        'rolling hour moves on. A fleet-wide reclaim, or a pattern that matches real failures.',
    });
    this.add('Expired', metrics.expired(Duration.minutes(5)), {
      threshold: 0,
      description:
        'A run waited for its re-run turn longer than maxWait and was left alone (expired): the wave outgrew the ' +
        "installation's pace. Re-run such runs by hand or with `reprise replay --force`.",
    });
    this.add('BreakerOpen', metrics.breakerOpen(Duration.minutes(5)), {
      threshold: 0,
      description:
        "An installation's re-runs kept being lost (re-run attempts ended lost again), so its automatic re-runs " +
        'pause for the cool-down and its runs wait: the runner fleet or its image is probably broken.',
    });
    this.add('RecoveryShareLow', metrics.recoveryShare(t.recoveryShareMinOutcomes, Duration.hours(1)), {
      threshold: t.recoverySharePercent,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      description:
        `Fewer than ${t.recoverySharePercent}% of re-run attempts recovered in an hour (at least ` +
        `${t.recoveryShareMinOutcomes} outcomes): re-runs land on the same broken capacity. Check the fleet, or ` +
        'send retries to on-demand runners.',
    });
    this.add('StuckQueued', metrics.stuckQueued(Duration.minutes(15)), {
      threshold: 0,
      description:
        'A job waited for a runner longer than stuck_after (see the reconciler log line "stuck queued"): the ' +
        'runner fleet cannot place its labels, or a retry after a reclaim never started.',
    });
    this.add('AppSecretInvalid', metrics.appSecretInvalid(Duration.minutes(5)), {
      threshold: 0,
      description:
        'The GitHub App secret is missing or malformed: runs wait in the work queue (up to maxWait) and sweeps are ' +
        'skipped until it holds {"appId", "privateKey"}. The worker log line says how to fix it.',
    });
    this.add('SweepFailures', metrics.sweepFailures(Duration.minutes(15)), {
      threshold: t.sweepFailures,
      description:
        `More than ${t.sweepFailures} failed reconciler sweeps in 15 minutes: orphaned claims and missed deliveries ` +
        'are not being repaired. See the reconciler log group.',
    });
    if (props.eksClusters && props.eksClusters.length > 0) {
      this.add('EksPodListing', metrics.eksPodListingFailures(Duration.minutes(15)), {
        threshold: 0,
        description:
          `The EC2 signal function could not list the runner pods of an interrupted node on ${props.eksClusters.join(', ')} ` +
          '(unreachable endpoint, role not mapped, 401/403, timeout): those runners fall back to text evidence. ' +
          'The function log line "cannot list the runner pods" names the cause, and reprise status shows it.',
      });
    }
    this.add(
      'QueueAge',
      props.workQueue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: Stats.MAXIMUM }),
      {
        threshold: t.oldestMessageAge.toSeconds(),
        description: `A run message waited more than ${t.oldestMessageAge.toHumanString()}: the worker is stuck or failing.`,
      },
    );
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      this.add(
        `${name}DeadLetters`,
        queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: Stats.MAXIMUM }),
        { threshold: 0, description: `Messages in the ${name} dead-letter queue: inspect them and redrive.` },
      );
    }
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(`${name}Errors`, fn.metricErrors({ period: Duration.minutes(5), statistic: Stats.SUM }), {
        threshold: 0,
        description: `The ${name} function failed: see its log group.`,
      });
      this.add(`${name}Throttles`, fn.metricThrottles({ period: Duration.minutes(5), statistic: Stats.SUM }), {
        threshold: 0,
        description: `The ${name} function was throttled: account concurrency is exhausted.`,
      });
    }
  }

  private add(
    id: string,
    metric: IMetric,
    options: { threshold: number; description: string; comparisonOperator?: ComparisonOperator },
  ): void {
    const props: AlarmProps = {
      metric,
      threshold: options.threshold,
      comparisonOperator: options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // No data means nothing happened: no deliveries, no errors, no GitHub calls.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    };
    const alarm = new Alarm(this, id, props);
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms[id] = alarm;
  }
}
