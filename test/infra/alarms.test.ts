import { Match, type Template } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DECISIONS } from '../../infra/metrics.js';
import { logicalId, resourcesOf, synthReprise } from './synth.js';

interface AlarmProps {
  AlarmDescription: string;
  Threshold: number;
  ComparisonOperator: string;
  MetricName?: string;
  Namespace?: string;
  Statistic?: string;
  Period?: number;
  Dimensions?: { Name: string; Value: unknown }[];
  Metrics?: { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string } } }[];
  AlarmActions: unknown[];
  OKActions: unknown[];
}

let t: Template;
beforeAll(() => {
  t = synthReprise().template;
});

const alarms = (template: Template) =>
  Object.entries(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map(
    ([id, a]) => [id, a.Properties as unknown as AlarmProps] as const,
  );
const alarm = (template: Template, prefix: string): AlarmProps => {
  const found = alarms(template).find(([id]) => id.startsWith(`RepriseAlarms${prefix}`));
  if (!found) throw new Error(`no alarm ${prefix}`);
  return found[1];
};

describe('alarms with default thresholds', () => {
  it.each([
    ['ReRunsPerHour', 'Rerun', 30, 'GreaterThanThreshold', 3600, 'Sum'],
    ['SignatureFailures', 'SignatureFailure', 5, 'GreaterThanThreshold', 300, 'Sum'],
    ['RateLimitLow', 'RateLimitRemaining', 500, 'LessThanThreshold', 300, 'Minimum'],
  ])('%s watches Reprise/%s against %i', (prefix, metric, threshold, op, period, stat) => {
    expect(alarm(t, prefix)).toMatchObject({
      Namespace: 'Reprise',
      MetricName: metric,
      Threshold: threshold,
      ComparisonOperator: op,
      Period: period,
      Statistic: stat,
      TreatMissingData: 'notBreaching',
    });
  });

  it('computes the re-run share with metric math, within the ten-metric limit, above a minimum of decisions', () => {
    const share = alarm(t, 'ReRunShare');
    expect(share.Threshold).toBe(50);
    const metrics = share.Metrics ?? [];
    const stats = metrics.filter((m) => m.MetricStat);
    expect(stats.length).toBeLessThanOrEqual(10);
    for (const m of stats) expect(m.MetricStat?.Metric.MetricName).toBe('Decision');
    const expression = metrics.find((m) => m.Expression)?.Expression ?? '';
    expect(expression).toMatch(/^IF\(\(.+\) >= 10, 100 \* \(FILL\(retried, 0\) \+ FILL\(retried_all, 0\)/);
  });

  it('alarms when under 50% of re-run attempts recover in an hour, with metric math above a minimum of 5 outcomes', () => {
    const low = alarm(t, 'RecoveryShareLow');
    expect(low).toMatchObject({
      Threshold: 50,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    const metrics = low.Metrics ?? [];
    const stats = metrics.filter((m) => m.MetricStat);
    expect(stats.length).toBeLessThanOrEqual(10);
    for (const m of stats) expect(m.MetricStat?.Metric.MetricName).toBe('RerunOutcome');
    const dims = stats.map(
      (m) => (m.MetricStat?.Metric as unknown as { Dimensions: { Name: string; Value: string }[] }).Dimensions,
    );
    const pairs = dims.map(
      (d) => `${d.find((x) => x.Name === 'service')?.Value}:${d.find((x) => x.Name === 'outcome')?.Value}`,
    );
    expect(pairs.sort()).toEqual(
      [
        'reprise-intake:recovered',
        'reprise-reconciler:recovered',
        'reprise-worker:lost_again',
        'reprise-worker:failed',
        'reprise-worker:cancelled',
      ].sort(),
    );
    const expression = metrics.find((m) => m.Expression)?.Expression ?? '';
    expect(expression).toMatch(
      /^IF\(\(.+\) >= 5, 100 \* \(FILL\(recovered_intake, 0\) \+ FILL\(recovered_reconciler, 0\)\) \/ \(.+\), 100\)$/,
    );
    for (const m of stats) expect((m.MetricStat as unknown as { Period: number }).Period).toBe(3600);
  });

  it('uses the decision names the worker logs', () => {
    const ids = (alarm(t, 'ReRunShare').Metrics ?? []).filter((m) => m.MetricStat).map((m) => m.Id);
    for (const id of ids) expect(DECISIONS as readonly string[]).toContain(id);
  });

  it.each(['WorkDeadLetters', 'SignalDeadLetters'])('%s fires on a single dead letter', (prefix) => {
    expect(alarm(t, prefix)).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it.each(['Intake', 'Worker', 'Ec2Signal', 'SignalIntake', 'Reconciler'])(
    '%s has error and throttle alarms at > 0',
    (fn) => {
      const fnId = logicalId(t, 'AWS::Lambda::Function', `Reprise${fn}Function`);
      for (const [suffix, metric] of [
        ['Errors', 'Errors'],
        ['Throttles', 'Throttles'],
      ]) {
        expect(alarm(t, `${fn}${suffix}`)).toMatchObject({
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Threshold: 0,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
        });
      }
    },
  );

  it.each([
    ['BudgetExhausted', 'BudgetExhausted', 'reprise-worker', 0, 300],
    ['Expired', 'Expired', 'reprise-worker', 0, 300],
    ['BreakerOpen', 'BreakerOpen', 'reprise-worker', 0, 300],
    ['SweepFailures', 'SweepFailed', 'reprise-reconciler', 1, 900],
    ['StuckQueued', 'StuckQueued', 'reprise-reconciler', 0, 900],
  ])('%s watches %s of %s above %i per %i s', (prefix, metric, service, threshold, period) => {
    expect(alarm(t, prefix)).toMatchObject({
      Namespace: 'Reprise',
      MetricName: metric,
      Dimensions: [{ Name: 'service', Value: service }],
      Threshold: threshold,
      ComparisonOperator: 'GreaterThanThreshold',
      Period: period,
      Statistic: 'Sum',
      TreatMissingData: 'notBreaching',
    });
  });

  it('AppSecretInvalid fires on one invocation of the worker or the reconciler without usable App credentials', () => {
    const a = alarm(t, 'AppSecretInvalid') as { Metrics: { Id: string; Expression?: string; MetricStat?: unknown }[] };
    expect(a).toMatchObject({
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    const sum = a.Metrics.find((m) => m.Expression);
    expect(sum?.Expression).toBe('FILL(worker, 0) + FILL(reconciler, 0)');
    for (const [id, service] of [
      ['worker', 'reprise-worker'],
      ['reconciler', 'reprise-reconciler'],
    ]) {
      expect(a.Metrics.find((m) => m.Id === id)?.MetricStat).toMatchObject({
        Metric: { MetricName: 'AppSecretInvalid', Dimensions: [{ Name: 'service', Value: service }] },
        Period: 300,
        Stat: 'Sum',
      });
    }
  });

  it('alarms when the oldest work message is older than 15 minutes', () => {
    expect(alarm(t, 'QueueAge')).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 900 });
  });

  it('sends every alarm and its recovery to the TLS-only topic', () => {
    const topic = logicalId(t, 'AWS::SNS::Topic', 'RepriseAlarmsAlarmTopic');
    const all = alarms(t);
    const fns = ['Intake', 'Worker', 'Ec2Signal', 'SignalIntake', 'Reconciler'];
    const names = [
      ...['ReRunsPerHour', 'ReRunShare', 'SignatureFailures', 'RateLimitLow', 'BudgetExhausted', 'Expired'],
      ...['BreakerOpen', 'SweepFailures', 'QueueAge', 'WorkDeadLetters', 'SignalDeadLetters'],
      'RecoveryShareLow',
      'StuckQueued',
      'AppSecretInvalid',
      ...fns.flatMap((f) => [`${f}Errors`, `${f}Throttles`]),
    ];
    // Every alarm is one of these, and each of these is one alarm.
    expect(all.map(([id]) => names.find((n) => id.startsWith(`RepriseAlarms${n}`))).sort()).toEqual([...names].sort());
    for (const [, a] of all) {
      expect(a.AlarmActions).toEqual([{ Ref: topic }]);
      expect(a.OKActions).toEqual([{ Ref: topic }]);
    }
    t.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    t.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('the runbook', () => {
  it('every alarm of the stack has an entry in docs/operations.md, and every entry is an alarm of the stack', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## When an alarm fires'));
    const documented = new Set(
      [...section.matchAll(/^\| (.+?) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`(\w+)`/g)].map((n) => n[1]!)),
    );
    // With every optional alarm: EksPodListing exists only with EKS clusters.
    const all = synthReprise({ eksClusters: [{ name: 'runners' }] }).template;
    const deployed = alarms(all).map(([id]) => id.replace(/^RepriseAlarms/, '').replace(/[A-F0-9]{8}$/, ''));
    expect(deployed.length).toBeGreaterThan(10);
    expect([...documented].sort()).toEqual([...new Set(deployed)].sort());
  });
});

describe('dashboard', () => {
  it('shows decisions by type, re-runs, signals by kind, queue age and errors', () => {
    const body = JSON.stringify(Object.values(resourcesOf(t, 'AWS::CloudWatch::Dashboard'))[0]?.Properties);
    for (const expected of [
      'Decisions by type',
      'MetricName=\\\\\\"Decision\\\\\\"',
      'Re-runs',
      'Runner signals by kind',
      'SignalRecorded',
      'ApproximateAgeOfOldestMessage',
      'Function errors',
      'Reconciler: repairs',
      'SweepFailed',
      'BudgetExhausted',
      'Expired',
      'RerunWaiting',
      'RerunOutcome',
      'BreakerOpen',
      'StuckQueued',
      'Re-run attempts that recovered (%)',
    ]) {
      expect(body).toContain(expected);
    }
  });
});

describe('non-default props flow through', () => {
  let alt: Template;
  beforeAll(() => {
    alt = synthReprise({
      metricsNamespace: 'RepriseTest',
      alarmEmail: 'ops@example.com',
      maxReceiveCount: 8,
      workerMaxConcurrency: 3,
      workerBatchSize: 4,
      alarms: {
        rerunsPerHour: 12,
        rerunSharePercent: 25,
        rerunShareMinDecisions: 4,
        signatureFailures: 2,
        rateLimitRemaining: 1500,
        sweepFailures: 3,
        recoverySharePercent: 30,
        recoveryShareMinOutcomes: 8,
      },
    }).template;
  });

  it.each([
    ['ReRunsPerHour', 12],
    ['ReRunShare', 25],
    ['SignatureFailures', 2],
    ['RateLimitLow', 1500],
    ['SweepFailures', 3],
    ['RecoveryShareLow', 30],
  ])('%s threshold is %i', (prefix, threshold) => {
    expect(alarm(alt, prefix).Threshold).toBe(threshold);
  });

  it('applies the minimum number of decisions and the namespace', () => {
    const share = alarm(alt, 'ReRunShare');
    expect(share.Metrics?.find((m) => m.Expression)?.Expression).toMatch(/>= 4,/);
    expect(alarm(alt, 'RecoveryShareLow').Metrics?.find((m) => m.Expression)?.Expression).toMatch(/>= 8,/);
    expect(alarm(alt, 'ReRunsPerHour').Namespace).toBe('RepriseTest');
    alt.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ POWERTOOLS_METRICS_NAMESPACE: 'RepriseTest' }) },
    });
  });

  it('subscribes the alarm e-mail', () => {
    alt.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });

  it('sizes the redrive and the event source mapping', () => {
    alt.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: Match.objectLike({ maxReceiveCount: 8 }) });
    alt.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ MAX_RECEIVE_COUNT: '8' }) },
    });
    alt.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 4,
      ScalingConfig: { MaximumConcurrency: 3 },
    });
  });
});
