import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { RepriseAlarms } from './alarms.js';
import { RepriseDashboard } from './dashboard.js';
import { RepriseMetrics } from './metrics.js';
import type { ResolvedProps } from './props/props-schema.js';

export interface ObservedProps {
  readonly props: ResolvedProps;
  /** By the name their widgets and alarms carry. */
  readonly functions: Record<string, IFunction>;
  readonly workQueue: Queue;
  readonly deadLetterQueues: Record<string, Queue>;
  readonly httpApi: HttpApi | undefined;
}

/** The alarms (with their topic) and the dashboard over the functions and queues, in `scope`. */
export function observe(
  scope: Construct,
  o: ObservedProps,
): { readonly alarmTopic: Topic; readonly dashboardUrl: string } {
  const p = o.props;
  const metrics = new RepriseMetrics(p.metricsNamespace);
  const alarms = new RepriseAlarms(scope, 'Alarms', {
    metrics,
    thresholds: p.alarms,
    functions: o.functions,
    workQueue: o.workQueue,
    deadLetterQueues: o.deadLetterQueues,
    alarmEmail: p.alarmEmail,
    eksClusters: (p.eksClusters ?? []).map((c) => c.name),
  });
  const dashboard = new RepriseDashboard(scope, 'Dashboard', {
    metrics,
    metricsNamespace: p.metricsNamespace,
    functions: o.functions,
    workQueue: o.workQueue,
    deadLetterQueues: o.deadLetterQueues,
    httpApi: o.httpApi,
  });
  return { alarmTopic: alarms.topic, dashboardUrl: dashboard.url };
}
