import { Aws, Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Dashboard, GraphWidget, type IWidget, MathExpression, Stats, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RERUN_OUTCOMES } from '../lib/model.js';
import type { RepriseMetrics } from './metrics.js';

export interface RepriseDashboardProps {
  readonly metrics: RepriseMetrics;
  readonly metricsNamespace: string;
  readonly functions: Record<string, IFunction>;
  readonly workQueue: Queue;
  readonly deadLetterQueues: Record<string, Queue>;
  readonly httpApi: HttpApi | undefined;
}

/** One page: what was decided, what was re-run, which signals arrived, and whether anything is failing. */
export class RepriseDashboard extends Construct {
  public readonly dashboard: Dashboard;
  /** Console link to the dashboard. */
  public readonly url: string;

  public constructor(scope: Construct, id: string, props: RepriseDashboardProps) {
    super(scope, id);
    const { metrics } = props;
    // SEARCH picks up every value of the dimension, including signal kinds posted by agents that no list names.
    const search = (metricName: string, dimension: string, period: Duration) =>
      new MathExpression({
        expression: `SEARCH('{${props.metricsNamespace},${dimension},service} MetricName="${metricName}"', 'Sum', ${period.toSeconds()})`,
        usingMetrics: {},
        period,
      });

    const widgets: IWidget[][] = [
      [
        new TextWidget({
          markdown:
            '# reprise\nDecisions per run attempt, re-runs, runner signals and faults. ' +
            'A decision is one log line with `run_id`, `decision` and `reason` in the worker log group.',
          width: 24,
          height: 2,
        }),
      ],
      [
        new GraphWidget({
          title: 'Decisions by type (per hour)',
          left: [search('Decision', 'decision', Duration.hours(1))],
          stacked: true,
          width: 12,
        }),
        new GraphWidget({
          title: 'Re-runs (per hour) and re-run share (%)',
          left: [metrics.reruns(Duration.hours(1))],
          right: [metrics.rerunShare(1, Duration.hours(1))],
          width: 12,
        }),
      ],
      [
        new GraphWidget({
          title: 'Runner signals by kind (per 5 minutes)',
          left: [search('SignalRecorded', 'kind', Duration.minutes(5))],
          stacked: true,
          width: 12,
        }),
        new GraphWidget({
          title: 'Work queue: oldest message age (s) and dead letters',
          left: [
            props.workQueue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, label: 'oldest (s)' }),
          ],
          right: Object.entries(props.deadLetterQueues).map(([name, q]) =>
            q.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, label: `${name} DLQ` }),
          ),
          width: 12,
        }),
      ],
      [
        new GraphWidget({
          title: 'Function errors and throttles',
          left: Object.entries(props.functions).map(([name, fn]) =>
            fn.metricErrors({ statistic: Stats.SUM, label: `${name} errors` }),
          ),
          right: Object.entries(props.functions).map(([name, fn]) =>
            fn.metricThrottles({ statistic: Stats.SUM, label: `${name} throttles` }),
          ),
          width: 12,
        }),
        new GraphWidget({
          title: 'Webhook signature failures, GitHub rate limit remaining',
          left: [metrics.signatureFailures()],
          right: [metrics.rateLimitRemaining()],
          width: 12,
        }),
      ],
      [
        new GraphWidget({
          title: 'Reconciler: repairs (per hour), failed sweeps and stuck-queued jobs',
          left: metrics.reconcilerRepairs(Duration.hours(1)),
          right: [metrics.sweepFailures(Duration.minutes(15)), metrics.stuckQueued(Duration.minutes(15))],
          width: 12,
        }),
        new GraphWidget({
          title: 'Pace: runs waiting for their turn, GitHub rate limits; expired, budget_exhausted',
          left: [metrics.rerunWaiting(Duration.minutes(5)), metrics.rateLimited(Duration.minutes(5))],
          right: [metrics.expired(Duration.minutes(5)), metrics.budgetExhausted(Duration.minutes(5))],
          width: 12,
        }),
      ],
      [
        new GraphWidget({
          title: 'Re-run outcomes (per hour)',
          left: RERUN_OUTCOMES.map((o) => metrics.rerunOutcome(o, Duration.hours(1))),
          right: [metrics.recoveryShare(1, Duration.hours(1))],
          stacked: true,
          width: 12,
        }),
        new GraphWidget({
          title: 'Breaker opened (re-runs kept being lost; re-runs paused)',
          left: [metrics.breakerOpen(Duration.minutes(5))],
          width: 12,
        }),
      ],
    ];
    if (props.httpApi) {
      widgets.push([
        new GraphWidget({
          title: 'HTTP API: 4xx, 5xx',
          left: [
            props.httpApi.metricClientError({ statistic: Stats.SUM }),
            props.httpApi.metricServerError({ statistic: Stats.SUM }),
          ],
          width: 12,
        }),
      ]);
    }
    this.dashboard = new Dashboard(this, 'Dashboard', { widgets, defaultInterval: Duration.days(1) });
    this.url =
      `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}` +
      `#dashboards:name=${this.dashboard.dashboardName}`;
  }
}
