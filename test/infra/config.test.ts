import { App, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { propsFromContext } from '../../infra/context.js';
import type { RepriseProps } from '../../infra/props/reprise-props.js';
import { graphqlUrlFor, resolveProps } from '../../infra/props/resolve.js';
import { WebhookAccess } from '../../infra/webhook-access.js';
import { resourcesOf, synthReprise } from './synth.js';

describe('worker and signal settings from props', () => {
  let t: Template;
  beforeAll(() => {
    t = synthReprise({
      githubApiUrl: 'https://ghe.example.com/api/v3/',
      maxAttempts: 4,
      textOnlyMaxAttempts: 1,
      dryRun: true,
      requireExactSignal: true,
      extraPatterns: ['runner .* evicted', 'node \\S+ drained'],
      retryBudgetPerHour: 0,
      breakerMinOutcomes: 20,
      breakerWindow: Duration.minutes(15),
      breakerLostSharePercent: 70,
      breakerCoolDown: Duration.minutes(45),
      logHosts: ['logs.ghe.example.com', 'blob.example.net'],
      runnerTagKeys: ['ghr:runner_name', 'Name'],
      signalWindowBefore: Duration.minutes(20),
      signalWindowAfter: Duration.minutes(2),
      signalTtl: Duration.hours(48),
      logLevel: 'DEBUG',
      logRetention: RetentionDays.ONE_WEEK,
      removalPolicy: RemovalPolicy.DESTROY,
      webhookAccess: WebhookAccess.httpApi({ rateLimit: 7, burstLimit: 9 }),
    }).template;
  });

  it('passes the decision defaults to the worker', () => {
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          GITHUB_API_URL: 'https://ghe.example.com/api/v3',
          GITHUB_GRAPHQL_URL: 'https://ghe.example.com/api/graphql',
          MAX_ATTEMPTS: '4',
          TEXT_ONLY_MAX_ATTEMPTS: '1',
          DRY_RUN: 'true',
          REQUIRE_EXACT_SIGNAL: 'true',
          EXTRA_PATTERNS: 'runner .* evicted\nnode \\S+ drained',
          RETRY_BUDGET_PER_HOUR: '0',
          LOG_HOSTS: 'logs.ghe.example.com,blob.example.net',
          SIGNAL_WINDOW_BEFORE_SECONDS: '1200',
          SIGNAL_WINDOW_AFTER_SECONDS: '120',
          POWERTOOLS_LOG_LEVEL: 'DEBUG',
        }),
      },
    });
  });

  it('passes the breaker settings to the worker, the intake and the reconciler', () => {
    const breaker = {
      BREAKER_MIN_OUTCOMES: '20',
      BREAKER_WINDOW_SECONDS: '900',
      BREAKER_LOST_SHARE_PERCENT: '70',
      BREAKER_COOL_DOWN_SECONDS: '2700',
    };
    for (const marker of ['RETRY_BUDGET_PER_HOUR', 'WEBHOOK_SECRET_ARN', 'GITHUB_APP_SECRET_ARN']) {
      t.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ ...breaker, [marker]: Match.anyValue() }) },
      });
    }
  });

  it('passes stuck_after to the reconciler: 15 minutes by default, as the props say otherwise', () => {
    const reconcilerEnv = (tpl: Template) =>
      (
        Object.entries(resourcesOf(tpl, 'AWS::Lambda::Function')).find(([id]) =>
          id.startsWith('RepriseReconcilerFunction'),
        )?.[1].Properties as { Environment: { Variables: Record<string, unknown> } }
      ).Environment.Variables;
    expect(reconcilerEnv(synthReprise().template).STUCK_AFTER_MINUTES).toBe('15');
    expect(reconcilerEnv(synthReprise({ stuckAfter: Duration.minutes(40) }).template).STUCK_AFTER_MINUTES).toBe('40');
    expect(() => resolveProps({ stuckAfter: Duration.seconds(30) })).toThrow(
      /stuckAfter: expected a whole number of minutes from 1 to 1440/,
    );
    expect(() => resolveProps({ stuckAfter: Duration.hours(25) })).toThrow(
      /stuckAfter: expected a whole number of minutes from 1 to 1440/,
    );
  });

  it('refuses a breaker share outside 1..100 and a zero cool-down', () => {
    expect(() => resolveProps({ breakerLostSharePercent: 0 })).toThrow(/breakerLostSharePercent/);
    expect(() => resolveProps({ breakerLostSharePercent: 101 })).toThrow(/breakerLostSharePercent/);
    expect(() => resolveProps({ breakerCoolDown: Duration.seconds(0) })).toThrow(/breakerCoolDown/);
  });

  it('passes tag keys and the signal TTL to the signal functions', () => {
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ RUNNER_TAG_KEYS: 'ghr:runner_name,Name', SIGNAL_TTL_HOURS: '48' }),
      },
    });
  });

  it('applies retention and removal policy to every log group, the table and the secrets', () => {
    for (const lg of Object.values(resourcesOf(t, 'AWS::Logs::LogGroup'))) {
      expect(lg.Properties?.RetentionInDays).toBe(7);
    }
    t.allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
    t.allResources('AWS::SecretsManager::Secret', { DeletionPolicy: 'Delete' });
    t.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });

  it('throttles the stage as asked', () => {
    t.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 },
    });
  });
});

describe('prop validation', () => {
  it.each<[string, RepriseProps, RegExp]>([
    ['maxReceiveCount below 5', { maxReceiveCount: 4 }, /maxReceiveCount/],
    ['worker concurrency below the SQS minimum', { workerMaxConcurrency: 1 }, /workerMaxConcurrency/],
    ['batch above the FIFO limit', { workerBatchSize: 11 }, /workerBatchSize/],
    ['text-only cap above the exact cap', { maxAttempts: 2, textOnlyMaxAttempts: 3 }, /textOnlyMaxAttempts/],
    ['plain-http GitHub URL', { githubApiUrl: 'http://ghe.local/api/v3' }, /https/],
    ['invalid extra pattern', { extraPatterns: ['(unclosed'] }, /invalid regular expression/],
    ['pattern with a line break', { extraPatterns: ['a\nb'] }, /line break/],
    ['share above 100 %', { alarms: { rerunSharePercent: 120 } }, /rerunSharePercent/],
    ['a reconcile interval under a minute', { reconcileInterval: Duration.seconds(30) }, /reconcileInterval/],
    ['a reconcile interval over an hour', { reconcileInterval: Duration.hours(2) }, /reconcileInterval/],
    ['a negative sweep failure threshold', { alarms: { sweepFailures: -1 } }, /sweepFailures/],
    [
      'maxAttempts above GitHub’s 50 re-runs of a run',
      { maxAttempts: 51 },
      /maxAttempts: expected a whole number from 1 to 50 \(GitHub allows 50/,
    ],
    ['a pace of 0 a minute', { pacePerMinute: 0 }, /pacePerMinute/],
    ['a negative hourly pace', { pacePerHour: -1 }, /pacePerHour/],
    ['a max wait over 12 hours', { maxWait: Duration.hours(13) }, /maxWait/],
    ['a max wait under a minute', { maxWait: Duration.seconds(30) }, /maxWait/],
  ])('rejects %s', (_name, props, message) => {
    expect(() => resolveProps(props)).toThrow(message);
  });

  it.each([
    ['https://api.github.com', 'https://api.github.com/graphql'],
    ['https://ghe.example.com/api/v3', 'https://ghe.example.com/api/graphql'],
    ['https://api.acme.ghe.com', 'https://api.acme.ghe.com/graphql'],
  ])('derives the GraphQL URL of %s', (api, graphql) => {
    expect(graphqlUrlFor(api)).toBe(graphql);
  });
});

describe('context (-c key=value)', () => {
  const read = (context: Record<string, unknown>) => propsFromContext(new App({ context }).node);

  it('reads strings from the command line into typed props', () => {
    const { stackName, props } = read({
      stackName: 'RepriseStaging',
      githubUrl: 'https://ghe.example.com/api/v3',
      alarmEmail: 'ops@example.com',
      maxAttempts: '4',
      dryRun: 'true',
      extraPatterns: 'runner .* evicted\\nnode drained',
      runnerTagKeys: 'Name, ghr:runner_name',
      logRetentionDays: '14',
      removalPolicy: 'destroy',
      rerunsPerHourThreshold: '10',
      webhookAccess: 'functionUrl',
      reconcileIntervalMinutes: '15',
      pacePerMinute: '40',
      pacePerHour: '300',
      maxWaitMinutes: '90',
      stuckAfterMinutes: '20',
      eventBusName: 'ci-events',
      recoveryShareThreshold: '40',
      recoveryShareMinOutcomes: '6',
    });
    expect(stackName).toBe('RepriseStaging');
    expect(props.stuckAfter?.toMinutes()).toBe(20);
    expect(props).toMatchObject({
      eventBusName: 'ci-events',
      alarms: { recoverySharePercent: 40, recoveryShareMinOutcomes: 6 },
    });
    expect(props).toMatchObject({ pacePerMinute: 40, pacePerHour: 300 });
    expect(props.maxWait?.toMinutes()).toBe(90);
    expect(props).toMatchObject({
      githubApiUrl: 'https://ghe.example.com/api/v3',
      alarmEmail: 'ops@example.com',
      maxAttempts: 4,
      dryRun: true,
      extraPatterns: ['runner .* evicted', 'node drained'],
      runnerTagKeys: ['Name', 'ghr:runner_name'],
      logRetention: RetentionDays.TWO_WEEKS,
      removalPolicy: RemovalPolicy.DESTROY,
      alarms: { rerunsPerHour: 10 },
    });
    expect(props.webhookAccess?.kind).toBe('functionUrl');
    expect(props.reconcileInterval?.toMinutes()).toBe(15);
  });

  it('keeps JSON types from cdk.json and leaves unset keys to the construct defaults', () => {
    const { stackName, props } = read({ dryRun: false, extraPatterns: ['a', 'b'], maxAttempts: 5 });
    expect(stackName).toBe('Reprise');
    expect(props).toMatchObject({ dryRun: false, extraPatterns: ['a', 'b'], maxAttempts: 5 });
    expect(props.githubApiUrl).toBeUndefined();
    expect(props.webhookAccess).toBeUndefined();
  });

  it('refuses maxAttempts above GitHub’s 50 re-runs of a run given as context', () => {
    expect(() => resolveProps(read({ maxAttempts: '51' }).props)).toThrow(
      /maxAttempts.*from 1 to 50 \(GitHub allows 50/,
    );
  });

  it.each([
    [{ dryRun: 'yes please' }, /dryRun/],
    [{ maxAttempts: 'three' }, /maxAttempts/],
    [{ logRetentionDays: '10' }, /logRetentionDays/],
    [{ webhookAccess: 'alb' }, /webhookAccess/],
    [{ removalPolicy: 'snapshot' }, /removalPolicy/],
  ])('rejects %j', (context, message) => {
    expect(() => read(context)).toThrow(message);
  });
});
