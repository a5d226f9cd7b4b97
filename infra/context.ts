import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import type { RepriseProps } from './props.js';
import { WebhookAccess } from './webhook-access.js';

/**
 * Context keys the app reads (`npx cdk deploy -c githubUrl=… -c alarmEmail=…`). Values given on the command line
 * arrive as strings, values from cdk.json keep their JSON type: both are accepted.
 */
export const CONTEXT_KEYS = [
  'stackName',
  'githubUrl',
  'githubGraphqlUrl',
  'webhookAccess',
  'apiRateLimit',
  'apiBurstLimit',
  'alarmEmail',
  'maxAttempts',
  'textOnlyMaxAttempts',
  'dryRun',
  'requireExactSignal',
  'extraPatterns',
  'retryBudgetPerHour',
  'pacePerMinute',
  'pacePerHour',
  'maxWaitMinutes',
  'breakerMinOutcomes',
  'breakerWindowMinutes',
  'breakerLostSharePercent',
  'breakerCoolDownMinutes',
  'reconcileIntervalMinutes',
  'stuckAfterMinutes',
  'eventBusName',
  'logHosts',
  'runnerTagKeys',
  'signalWindowBeforeSeconds',
  'signalWindowAfterSeconds',
  'signalTtlHours',
  'workerMaxConcurrency',
  'maxReceiveCount',
  'bundleAwsSdk',
  'metricsNamespace',
  'logLevel',
  'logRetentionDays',
  'removalPolicy',
  'rerunsPerHourThreshold',
  'rerunShareThreshold',
  'rateLimitRemainingThreshold',
  'signatureFailureThreshold',
  'recoveryShareThreshold',
  'recoveryShareMinOutcomes',
] as const;
type ContextKey = (typeof CONTEXT_KEYS)[number];

class ContextReader {
  public constructor(private readonly node: Node) {}

  public raw(key: ContextKey): unknown {
    const value: unknown = this.node.tryGetContext(key);
    return value === '' ? undefined : value;
  }

  public string(key: ContextKey): string | undefined {
    const v = this.raw(key);
    return v === undefined ? undefined : String(v);
  }

  public number(key: ContextKey): number | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new Error(`context ${key} must be a number, got ${String(v)}`);
    return n;
  }

  public boolean(key: ContextKey): boolean | undefined {
    const v = this.raw(key);
    if (v === undefined || typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    throw new Error(`context ${key} must be true or false, got ${String(v)}`);
  }

  /** A JSON array, or a string split on `separator`. */
  public list(key: ContextKey, separator: RegExp): string[] | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    const items = Array.isArray(v) ? v.map(String) : String(v).split(separator);
    return items.map((s) => s.trim()).filter((s) => s.length > 0);
  }
}

const seconds = (n: number | undefined) => (n === undefined ? undefined : Duration.seconds(n));
const minutes = (n: number | undefined) => (n === undefined ? undefined : Duration.minutes(n));

function logRetention(days: number | undefined): RetentionDays | undefined {
  if (days === undefined) return undefined;
  const valid = Object.values(RetentionDays).filter((v): v is RetentionDays => typeof v === 'number');
  if (!valid.includes(days as RetentionDays))
    throw new Error(`context logRetentionDays: ${days} is not a CloudWatch retention`);
  return days as RetentionDays;
}

function removalPolicy(value: string | undefined): RemovalPolicy | undefined {
  if (value === undefined) return undefined;
  const map: Record<string, RemovalPolicy> = { retain: RemovalPolicy.RETAIN, destroy: RemovalPolicy.DESTROY };
  const policy = map[value.toLowerCase()];
  if (!policy) throw new Error(`context removalPolicy must be retain or destroy, got ${value}`);
  return policy;
}

function webhookAccess(kind: string | undefined, rateLimit?: number, burstLimit?: number): WebhookAccess | undefined {
  if (kind === undefined || kind === 'httpApi') {
    return rateLimit === undefined && burstLimit === undefined
      ? undefined
      : WebhookAccess.httpApi({ rateLimit, burstLimit });
  }
  if (kind === 'functionUrl') return WebhookAccess.functionUrl();
  throw new Error(`context webhookAccess must be httpApi or functionUrl, got ${kind}`);
}

/** The stack name and the {@link RepriseProps} given as context; anything not given keeps the construct default. */
export function propsFromContext(node: Node): { stackName: string; props: RepriseProps } {
  const c = new ContextReader(node);
  const logLevel = c.string('logLevel')?.toUpperCase();
  if (logLevel !== undefined && !['DEBUG', 'INFO', 'WARN', 'ERROR'].includes(logLevel)) {
    throw new Error(`context logLevel must be DEBUG, INFO, WARN or ERROR, got ${logLevel}`);
  }
  const props: RepriseProps = {
    githubApiUrl: c.string('githubUrl'),
    githubGraphqlUrl: c.string('githubGraphqlUrl'),
    webhookAccess: webhookAccess(c.string('webhookAccess'), c.number('apiRateLimit'), c.number('apiBurstLimit')),
    alarmEmail: c.string('alarmEmail'),
    maxAttempts: c.number('maxAttempts'),
    textOnlyMaxAttempts: c.number('textOnlyMaxAttempts'),
    dryRun: c.boolean('dryRun'),
    requireExactSignal: c.boolean('requireExactSignal'),
    // One pattern per line; a literal `\n` also separates, since shells make real newlines awkward in `-c`.
    extraPatterns: c.list('extraPatterns', /\r?\n|\\n/),
    retryBudgetPerHour: c.number('retryBudgetPerHour'),
    pacePerMinute: c.number('pacePerMinute'),
    pacePerHour: c.number('pacePerHour'),
    maxWait: c.number('maxWaitMinutes') === undefined ? undefined : Duration.minutes(c.number('maxWaitMinutes') ?? 0),
    breakerMinOutcomes: c.number('breakerMinOutcomes'),
    breakerWindow: minutes(c.number('breakerWindowMinutes')),
    breakerLostSharePercent: c.number('breakerLostSharePercent'),
    breakerCoolDown: minutes(c.number('breakerCoolDownMinutes')),
    reconcileInterval:
      c.number('reconcileIntervalMinutes') === undefined
        ? undefined
        : Duration.minutes(c.number('reconcileIntervalMinutes') ?? 0),
    stuckAfter: minutes(c.number('stuckAfterMinutes')),
    eventBusName: c.string('eventBusName'),
    logHosts: c.list('logHosts', /,/),
    runnerTagKeys: c.list('runnerTagKeys', /,/),
    signalWindowBefore: seconds(c.number('signalWindowBeforeSeconds')),
    signalWindowAfter: seconds(c.number('signalWindowAfterSeconds')),
    signalTtl: c.number('signalTtlHours') === undefined ? undefined : Duration.hours(c.number('signalTtlHours') ?? 0),
    workerMaxConcurrency: c.number('workerMaxConcurrency'),
    maxReceiveCount: c.number('maxReceiveCount'),
    bundleAwsSdk: c.boolean('bundleAwsSdk'),
    metricsNamespace: c.string('metricsNamespace'),
    logLevel: logLevel as RepriseProps['logLevel'],
    logRetention: logRetention(c.number('logRetentionDays')),
    removalPolicy: removalPolicy(c.string('removalPolicy')),
    alarms: {
      rerunsPerHour: c.number('rerunsPerHourThreshold'),
      rerunSharePercent: c.number('rerunShareThreshold'),
      rateLimitRemaining: c.number('rateLimitRemainingThreshold'),
      signatureFailures: c.number('signatureFailureThreshold'),
      recoverySharePercent: c.number('recoveryShareThreshold'),
      recoveryShareMinOutcomes: c.number('recoveryShareMinOutcomes'),
    },
  };
  return { stackName: c.string('stackName') ?? 'Reprise', props };
}
