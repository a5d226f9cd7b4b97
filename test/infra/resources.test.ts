import { Duration } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ASG_DETAIL_TYPES, EC2_DETAIL_TYPES, SIGNAL_TARGET_RETRY, TERMINAL_STATES } from '../../infra/ec2-signals.js';
import { TIMEOUTS } from '../../infra/reprise.js';
import { DECISION_NEED_MS, DECISION_ROUND_TRIPS, GITHUB_REQUEST_TIMEOUT_MS } from '../../lib/config/github-settings.js';
import {
  DEFAULT_BURST_LIMIT,
  DEFAULT_RATE_LIMIT,
  DEFAULT_SIGNALS_BURST_LIMIT,
  DEFAULT_SIGNALS_RATE_LIMIT,
  DEFAULT_SIGNALS_RESERVED_CONCURRENCY,
  WebhookAccess,
} from '../../infra/webhook-access.js';
import { logicalId, resourcesOf, synthReprise } from './synth.js';

let t: Template;
beforeAll(() => {
  t = synthReprise().template;
});

const fnId = (prefix: string) => logicalId(t, 'AWS::Lambda::Function', `Reprise${prefix}Function`);

describe('work queue', () => {
  it('is FIFO without content-based dedup, encrypted, with a FIFO DLQ after 5 receives', () => {
    const dlq = logicalId(t, 'AWS::SQS::Queue', 'RepriseWorkDeadLetterQueue');
    t.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      ContentBasedDeduplication: false,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(resourcesOf(t, 'AWS::SQS::Queue')[dlq]?.Properties).toMatchObject({
      FifoQueue: true,
      SqsManagedSseEnabled: true,
    });
  });

  it('has a visibility timeout of at least six worker timeouts', () => {
    const worker = resourcesOf(t, 'AWS::Lambda::Function')[fnId('Worker')];
    const timeout = worker?.Properties?.Timeout as number;
    expect(timeout).toBe(TIMEOUTS.worker.toSeconds());
    const queue = resourcesOf(t, 'AWS::SQS::Queue')[logicalId(t, 'AWS::SQS::Queue', 'RepriseWorkQueue')];
    expect(queue?.Properties?.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
  });

  it("derives the worker's timeout from a decision's need (request timeout × round trips) and the visibility timeout from the worker's", () => {
    const worker = resourcesOf(t, 'AWS::Lambda::Function')[fnId('Worker')];
    const timeout = worker?.Properties?.Timeout as number;
    expect(timeout * 1000).toBe(2 * GITHUB_REQUEST_TIMEOUT_MS * DECISION_ROUND_TRIPS);
    expect(DECISION_NEED_MS).toBe(GITHUB_REQUEST_TIMEOUT_MS * DECISION_ROUND_TRIPS);
    const queue = resourcesOf(t, 'AWS::SQS::Queue')[logicalId(t, 'AWS::SQS::Queue', 'RepriseWorkQueue')];
    expect(queue?.Properties?.VisibilityTimeout).toBe(6 * timeout);
  });

  it.each(['Intake', 'Worker', 'Reconciler'])(
    '%s, which sends to or changes messages of the work queue, reads its URL from the environment',
    (prefix) => {
      const fn = resourcesOf(t, 'AWS::Lambda::Function')[fnId(prefix)];
      const vars = (fn?.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
      expect(vars?.QUEUE_URL).toEqual({ Ref: logicalId(t, 'AWS::SQS::Queue', 'RepriseWorkQueue') });
    },
  );

  it.each(['RepriseWorkQueue', 'RepriseWorkDeadLetterQueue', 'RepriseSignalDeadLetterQueue'])(
    '%s denies requests without TLS',
    (prefix) => {
      t.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId(t, 'AWS::SQS::Queue', prefix) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    },
  );

  it('feeds the worker with batch item failures and bounded concurrency', () => {
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId('Worker') },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(t, 'AWS::SQS::Queue', 'RepriseWorkQueue'), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });
});

describe('table', () => {
  it('is pk/sk, on demand, with TTL, PITR, deletion protection and RETAIN', () => {
    t.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      },
    });
  });
});

describe('secrets', () => {
  it('holds three retained secrets; webhook and signal secrets are generated without punctuation', () => {
    t.resourceCountIs('AWS::SecretsManager::Secret', 3);
    t.allResources('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
    for (const prefix of ['RepriseStorageWebhookSecret', 'RepriseStorageSignalSecret']) {
      const secret = resourcesOf(t, 'AWS::SecretsManager::Secret')[logicalId(t, 'AWS::SecretsManager::Secret', prefix)];
      expect(secret?.Properties?.GenerateSecretString).toMatchObject({ ExcludePunctuation: true });
      expect(secret?.Properties?.SecretString).toBeUndefined();
    }
  });

  it('starts the GitHub App secret as an empty appId/privateKey placeholder', () => {
    const id = logicalId(t, 'AWS::SecretsManager::Secret', 'RepriseStorageGitHubAppSecret');
    const secret = resourcesOf(t, 'AWS::SecretsManager::Secret')[id];
    expect(JSON.parse(secret?.Properties?.SecretString as string)).toEqual({ appId: '', privateKey: '' });
  });
});

describe('functions', () => {
  const fns = () => Object.values(resourcesOf(t, 'AWS::Lambda::Function'));

  it('run nodejs22.x on arm64, each with its own log group with a retention', () => {
    expect(fns()).toHaveLength(5);
    const logGroups = resourcesOf(t, 'AWS::Logs::LogGroup');
    const seen = new Set<string>();
    for (const fn of fns()) {
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'] });
      const ref = (fn.Properties?.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(logGroups[ref]?.Properties?.RetentionInDays).toBe(30);
      seen.add(ref);
    }
    expect(seen.size).toBe(5);
  });

  it.each([
    ['Intake', 5, 256, 'reprise-intake'],
    ['Worker', 80, 512, 'reprise-worker'],
    ['Ec2Signal', 10, 256, 'reprise-ec2-signal'],
    ['SignalIntake', 5, 256, 'reprise-signal-intake'],
    ['Reconciler', 120, 256, 'reprise-reconciler'],
  ])('%s: timeout %i s, %i MB, Powertools env', (name, timeout, memory, service) => {
    expect(resourcesOf(t, 'AWS::Lambda::Function')[fnId(name)]?.Properties).toMatchObject({
      Timeout: timeout,
      MemorySize: memory,
      Environment: {
        Variables: {
          POWERTOOLS_SERVICE_NAME: service,
          POWERTOOLS_METRICS_NAMESPACE: 'Reprise',
          POWERTOOLS_LOG_LEVEL: 'INFO',
        },
      },
    });
  });

  it.each([
    ['Intake', ['TABLE_NAME', 'QUEUE_URL', 'WEBHOOK_SECRET_ARN']],
    [
      'Worker',
      [
        'TABLE_NAME',
        'GITHUB_APP_SECRET_ARN',
        'GITHUB_API_URL',
        'GITHUB_GRAPHQL_URL',
        'MAX_ATTEMPTS',
        'TEXT_ONLY_MAX_ATTEMPTS',
        'DRY_RUN',
        'REQUIRE_EXACT_SIGNAL',
        'EXTRA_PATTERNS',
        'RETRY_BUDGET_PER_HOUR',
        'MAX_RECEIVE_COUNT',
        'SIGNAL_WINDOW_BEFORE_SECONDS',
        'SIGNAL_WINDOW_AFTER_SECONDS',
      ],
    ],
    ['Ec2Signal', ['TABLE_NAME', 'RUNNER_TAG_KEYS', 'SIGNAL_TTL_HOURS']],
    ['SignalIntake', ['TABLE_NAME', 'SIGNAL_SECRET_ARN', 'SIGNAL_TTL_HOURS']],
    [
      'Reconciler',
      [
        'TABLE_NAME',
        'QUEUE_URL',
        'GITHUB_APP_SECRET_ARN',
        'GITHUB_API_URL',
        'GITHUB_GRAPHQL_URL',
        'STUCK_AFTER_MINUTES',
        'EVENT_BUS_NAME',
        'PACE_PER_MINUTE',
        'PACE_PER_HOUR',
        'WRITE_SPACING_MS',
      ],
    ],
  ])('%s gets its configuration', (name, keys) => {
    const env = (
      resourcesOf(t, 'AWS::Lambda::Function')[fnId(name)]?.Properties?.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(Object.keys(env)).toEqual(expect.arrayContaining(keys));
  });

  it('worker defaults: github.com, 3/2 attempts, no dry run, no budget ceiling, a pace of 80 a minute and 500 an hour, 6 h max wait, -10/+5 min window', () => {
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          GITHUB_API_URL: 'https://api.github.com',
          GITHUB_GRAPHQL_URL: 'https://api.github.com/graphql',
          MAX_ATTEMPTS: '3',
          TEXT_ONLY_MAX_ATTEMPTS: '2',
          DRY_RUN: 'false',
          REQUIRE_EXACT_SIGNAL: 'false',
          EXTRA_PATTERNS: '',
          RETRY_BUDGET_PER_HOUR: '0',
          PACE_PER_MINUTE: '80',
          PACE_PER_HOUR: '500',
          WRITE_SPACING_MS: '350',
          MAX_WAIT_SECONDS: '21600',
          SIGNAL_WINDOW_BEFORE_SECONDS: '600',
          SIGNAL_WINDOW_AFTER_SECONDS: '300',
          LOG_HOSTS: Match.absent(),
        }),
      },
    });
  });
});

describe('HTTP API', () => {
  it.each(['POST /webhook', 'POST /signals'])('routes %s to a Lambda proxy integration', (routeKey) => {
    t.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: routeKey, Target: Match.anyValue() });
  });

  it('routes each path to its own function', () => {
    const integrations = resourcesOf(t, 'AWS::ApiGatewayV2::Integration');
    const targets = Object.values(integrations).map((i) => JSON.stringify(i.Properties?.IntegrationUri));
    expect(targets.some((s) => s.includes(fnId('Intake')))).toBe(true);
    expect(targets.some((s) => s.includes(fnId('SignalIntake')))).toBe(true);
  });

  it("the default burst takes two overlapping workflow_job waves of a 256-job matrix (GitHub's largest)", () => {
    const matrixJobs = 256;
    expect(DEFAULT_BURST_LIMIT).toBeGreaterThanOrEqual(2 * matrixJobs);
  });

  it('separate doors: POST /webhook and POST /signals each have a throttle of their own, and the stage is made after both routes', () => {
    const stages = resourcesOf(t, 'AWS::ApiGatewayV2::Stage');
    expect(Object.keys(stages)).toHaveLength(1);
    const [id, stage] = Object.entries(stages)[0]!;
    expect(stage.Properties?.RouteSettings).toEqual({
      'POST /webhook': { ThrottlingRateLimit: DEFAULT_RATE_LIMIT, ThrottlingBurstLimit: DEFAULT_BURST_LIMIT },
      'POST /signals': {
        ThrottlingRateLimit: DEFAULT_SIGNALS_RATE_LIMIT,
        ThrottlingBurstLimit: DEFAULT_SIGNALS_BURST_LIMIT,
      },
    });
    // The signals door is the narrower one: agents post rarely, GitHub in waves.
    expect(DEFAULT_SIGNALS_BURST_LIMIT).toBeLessThan(DEFAULT_BURST_LIMIT);
    const routes = Object.keys(resourcesOf(t, 'AWS::ApiGatewayV2::Route'));
    expect(routes).toHaveLength(2);
    expect([(t.toJSON().Resources as Record<string, { DependsOn?: string[] }>)[id]?.DependsOn].flat()).toEqual(
      expect.arrayContaining(routes),
    );
    // Without the API, no function of this mode reserves concurrency.
    for (const fn of Object.values(resourcesOf(t, 'AWS::Lambda::Function'))) {
      expect(fn.Properties?.ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  it('the signal door is set apart as asked, and a bad limit is refused naming it', () => {
    const alt = synthReprise({
      webhookAccess: WebhookAccess.httpApi({ signalsRateLimit: 3, signalsBurstLimit: 4 }),
    }).template;
    alt.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      RouteSettings: Match.objectLike({ 'POST /signals': { ThrottlingRateLimit: 3, ThrottlingBurstLimit: 4 } }),
    });
    expect(() => WebhookAccess.httpApi({ signalsBurstLimit: 0 })).toThrow(/signalsRateLimit and signalsBurstLimit/);
  });

  it('throttles the default stage and writes JSON access logs to a retained log group', () => {
    t.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: DEFAULT_RATE_LIMIT, ThrottlingBurstLimit: DEFAULT_BURST_LIMIT },
      AccessLogSettings: {
        DestinationArn: {
          'Fn::GetAtt': [logicalId(t, 'AWS::Logs::LogGroup', 'RepriseHttpApiAccessAccessLogs'), 'Arn'],
        },
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
    });
  });
});

describe('EC2 signal rules', () => {
  it('matches spot interruption warnings and rebalance recommendations', () => {
    t.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.ec2'],
        'detail-type': ['EC2 Spot Instance Interruption Warning', 'EC2 Instance Rebalance Recommendation'],
      },
    });
  });

  it('matches state changes to shutting-down and terminated only', () => {
    t.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.ec2'],
        'detail-type': ['EC2 Instance State-change Notification'],
        detail: { state: ['shutting-down', 'terminated'] },
      },
    });
    expect(TERMINAL_STATES).toEqual(['shutting-down', 'terminated']);
    expect(Object.values(EC2_DETAIL_TYPES)).toHaveLength(3);
  });

  it("matches Auto Scaling's own terminations, which make a state change after them exact", () => {
    t.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.autoscaling'],
        'detail-type': ['EC2 Instance-terminate Lifecycle Action', 'EC2 Instance Terminate Successful'],
      },
    });
    expect(Object.values(ASG_DETAIL_TYPES)).toHaveLength(2);
  });

  it('targets the signal function with retries, an event age limit and an encrypted DLQ', () => {
    const dlq = logicalId(t, 'AWS::SQS::Queue', 'RepriseSignalDeadLetterQueue');
    const rules = Object.values(resourcesOf(t, 'AWS::Events::Rule')).filter((r) => r.Properties?.EventPattern);
    expect(rules).toHaveLength(3);
    for (const rule of rules) {
      expect(rule.Properties?.Targets).toEqual([
        expect.objectContaining({
          Arn: { 'Fn::GetAtt': [fnId('Ec2Signal'), 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlq, 'Arn'] } },
          RetryPolicy: {
            MaximumRetryAttempts: SIGNAL_TARGET_RETRY.retryAttempts,
            MaximumEventAgeInSeconds: SIGNAL_TARGET_RETRY.maxEventAge.toSeconds(),
          },
        }),
      ]);
    }
    t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId('Ec2Signal') },
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlq, 'Arn'] } } },
    });
  });
});

describe('reconciler schedule', () => {
  it('invokes the reconciler every 5 minutes, with retries bounded by an event age below the interval', () => {
    const rules = Object.values(resourcesOf(t, 'AWS::Events::Rule')).filter((r) => r.Properties?.ScheduleExpression);
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties).toMatchObject({
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [
        expect.objectContaining({
          Arn: { 'Fn::GetAtt': [fnId('Reconciler'), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 240 },
        }),
      ],
    });
    t.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [fnId('Reconciler'), 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });

  it('turns off Lambda async retries: the next tick is the retry', () => {
    t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId('Reconciler') },
      MaximumRetryAttempts: 0,
    });
  });

  it('takes its interval from props', () => {
    const alt = synthReprise({ reconcileInterval: Duration.minutes(10) }).template;
    alt.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(10 minutes)' });
  });
});

describe('outputs', () => {
  it.each([
    'WebhookUrl',
    'SignalsUrl',
    'GitHubAppSecretName',
    'WebhookSecretName',
    'SignalSecretName',
    'DashboardUrl',
    'TableName',
    'QueueUrl',
  ])('exports %s', (name) => {
    t.hasOutput(name, { Value: Match.anyValue() });
  });

  it('points the webhook URL at /webhook on the HTTP API', () => {
    const out = t.findOutputs('WebhookUrl').WebhookUrl as { Value: unknown };
    expect(JSON.stringify(out.Value)).toMatch(/execute-api.*\/webhook/);
  });
});

describe('WebhookAccess.functionUrl()', () => {
  it('exposes both intake functions through public function URLs and creates no API', () => {
    const alt = synthReprise({ webhookAccess: WebhookAccess.functionUrl() }).template;
    alt.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    alt.resourceCountIs('AWS::Lambda::Url', 2);
    alt.allResourcesProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
    const out = alt.findOutputs('WebhookUrl').WebhookUrl as { Value: unknown };
    expect(JSON.stringify(out.Value)).toContain('FunctionUrl');
  });

  it('separate doors without an API: the signal intake holds a reserved concurrency of its own, the webhook intake none', () => {
    const alt = synthReprise({ webhookAccess: WebhookAccess.functionUrl() }).template;
    const fns = resourcesOf(alt, 'AWS::Lambda::Function');
    const id = (prefix: string) => logicalId(alt, 'AWS::Lambda::Function', `Reprise${prefix}Function`);
    expect(fns[id('SignalIntake')]?.Properties?.ReservedConcurrentExecutions).toBe(
      DEFAULT_SIGNALS_RESERVED_CONCURRENCY,
    );
    const reserved = Object.entries(fns).filter(([, f]) => f.Properties?.ReservedConcurrentExecutions !== undefined);
    expect(reserved.map(([k]) => k)).toEqual([id('SignalIntake')]);
    const asked = synthReprise({
      webhookAccess: WebhookAccess.functionUrl({ signalsReservedConcurrency: 7 }),
    }).template;
    asked.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 7 });
    expect(() => WebhookAccess.functionUrl({ signalsReservedConcurrency: 0 })).toThrow(/signalsReservedConcurrency/);
  });
});
