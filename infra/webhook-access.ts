import { SETTINGS } from '../lib/config/settings-schema.js';
import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { CfnStage, HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { CfnFunction, FunctionUrlAuthType, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledge } from './nag.js';

/** What a {@link WebhookAccess} strategy is given to wire up. */
export interface WebhookAccessBindOptions {
  /** Handles `POST /webhook` (GitHub deliveries). */
  readonly webhookHandler: IFunction;
  /** Handles `POST /signals` (external runner-loss agents). */
  readonly signalHandler: IFunction;
  /** Retention of the access log group, when the strategy has one. */
  readonly logRetention: RetentionDays;
  /** Removal policy of the access log group, when the strategy has one. */
  readonly removalPolicy: RemovalPolicy;
}

/** The endpoints a {@link WebhookAccess} strategy produced. */
export interface WebhookEndpoints {
  /** URL to register as the GitHub App's webhook URL. */
  readonly webhookUrl: string;
  /** URL external agents post runner signals to. */
  readonly signalsUrl: string;
  /** The HTTP API, when the strategy created one. */
  readonly httpApi?: HttpApi;
}

/** From the settings schema, where the context keys `apiBurstLimit` and `apiRateLimit` are declared. */
export const DEFAULT_BURST_LIMIT = SETTINGS.apiBurstLimit.default;
export const DEFAULT_RATE_LIMIT = SETTINGS.apiRateLimit.default;
/** `POST /signals`: agents post rarely (a node's drain, a runner's shutdown), GitHub in waves. */
export const DEFAULT_SIGNALS_RATE_LIMIT = 10;
export const DEFAULT_SIGNALS_BURST_LIMIT = 50;
/** The signal intake's reserved concurrency with function URLs. */
export const DEFAULT_SIGNALS_RESERVED_CONCURRENCY = 2;

/** Options of {@link WebhookAccess.httpApi}. */
export interface HttpApiAccessOptions {
  /**
   * Steady-state request rate (per second) of `POST /webhook` (and the stage's default). A
   * throttled delivery is answered 429 and GitHub does not retry it by itself (the reconciler
   * asks for it again).
   * @default 100
   */
  readonly rateLimit?: number;
  /**
   * Burst request limit of `POST /webhook` (and the stage's default). A 256-job matrix (GitHub's
   * largest) sends one `workflow_job` delivery per job at once when it is queued, again when
   * runners pick it up and again on completion; 600 holds two such waves overlapping.
   * @default 600
   */
  readonly burstLimit?: number;
  /**
   * Steady-state request rate (per second) of `POST /signals`, a throttle of its own: a flood of
   * unsigned posts there (each answered 401) never takes the webhook route's capacity.
   * @default 10
   */
  readonly signalsRateLimit?: number;
  /**
   * Burst request limit of `POST /signals`.
   * @default 50
   */
  readonly signalsBurstLimit?: number;
}

/** Options of {@link WebhookAccess.functionUrl}. */
export interface FunctionUrlAccessOptions {
  /**
   * Reserved concurrency of the signal intake: its cap, so a flood of posts is refused (429)
   * past it instead of taking the account's concurrency from the webhook intake, and its own
   * share, which the webhook intake cannot take. The account keeps at least 10 unreserved.
   * @default 2
   */
  readonly signalsReservedConcurrency?: number;
}

/** How deliveries and signals reach the intake functions. */
export abstract class WebhookAccess {
  /** An HTTP API with `POST /webhook` and `POST /signals`, each throttled on its own, and access logs. */
  public static httpApi(options: HttpApiAccessOptions = {}): WebhookAccess {
    return new HttpApiAccess(
      { rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT, burstLimit: options.burstLimit ?? DEFAULT_BURST_LIMIT },
      {
        rateLimit: options.signalsRateLimit ?? DEFAULT_SIGNALS_RATE_LIMIT,
        burstLimit: options.signalsBurstLimit ?? DEFAULT_SIGNALS_BURST_LIMIT,
      },
    );
  }

  /**
   * One Lambda function URL per intake function: no API Gateway cost, but no stage throttling and no access log;
   * the signal intake is held to its reserved concurrency instead. Both URLs accept any path; the handlers
   * authenticate every request themselves.
   */
  public static functionUrl(options: FunctionUrlAccessOptions = {}): WebhookAccess {
    return new FunctionUrlAccess(options.signalsReservedConcurrency ?? DEFAULT_SIGNALS_RESERVED_CONCURRENCY);
  }

  /** Short name, for descriptions and tests. */
  public abstract readonly kind: 'httpApi' | 'functionUrl';

  /** Creates the resources that expose the two handlers. */
  public abstract bind(scope: Construct, options: WebhookAccessBindOptions): WebhookEndpoints;
}

interface Throttle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

const routeThrottle = (t: Throttle) => ({ ThrottlingRateLimit: t.rateLimit, ThrottlingBurstLimit: t.burstLimit });

class HttpApiAccess extends WebhookAccess {
  public readonly kind = 'httpApi';

  public constructor(
    private readonly webhook: Throttle,
    private readonly signals: Throttle,
  ) {
    super();
    for (const [what, t] of [
      ['rateLimit and burstLimit', webhook],
      ['signalsRateLimit and signalsBurstLimit', signals],
    ] as const) {
      if (!(t.rateLimit > 0) || !Number.isInteger(t.burstLimit) || t.burstLimit < 1) {
        throw new Error(`Reprise: HTTP API ${what} must be positive`);
      }
    }
  }

  public bind(scope: Construct, options: WebhookAccessBindOptions): WebhookEndpoints {
    const root = new Construct(scope, 'HttpApiAccess');
    const api = new HttpApi(root, 'Api', {
      description: 'reprise: GitHub webhook deliveries and runner signals',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(root, 'AccessLogs', {
      retention: options.logRetention,
      removalPolicy: options.removalPolicy,
    });
    // Request metadata only: headers and bodies (signatures, bearer tokens) never reach the log.
    const format = AccessLogFormat.custom(
      JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        requestTime: '$context.requestTime',
        routeKey: '$context.routeKey',
        status: '$context.status',
        protocol: '$context.protocol',
        responseLength: '$context.responseLength',
        latency: '$context.responseLatency',
        integrationLatency: '$context.integrationLatency',
        integrationError: '$context.integrationErrorMessage',
        userAgent: '$context.identity.userAgent',
      }),
    );
    const stage = new HttpStage(root, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: this.webhook.rateLimit, burstLimit: this.webhook.burstLimit },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format },
    });
    const webhookRoutes = api.addRoutes({
      path: '/webhook',
      methods: [HttpMethod.POST],
      integration: new HttpLambdaIntegration('Webhook', options.webhookHandler),
    });
    const signalRoutes = api.addRoutes({
      path: '/signals',
      methods: [HttpMethod.POST],
      integration: new HttpLambdaIntegration('Signals', options.signalHandler),
    });
    // Each route its own token bucket, so unsigned traffic on one never refuses the other. A
    // route's settings name a route that must exist first.
    (stage.node.defaultChild as CfnStage).routeSettings = {
      'POST /webhook': routeThrottle(this.webhook),
      'POST /signals': routeThrottle(this.signals),
    };
    for (const r of [...webhookRoutes, ...signalRoutes]) stage.node.addDependency(r);
    acknowledge(
      api,
      'AwsSolutions-APIG4',
      'GitHub cannot sign webhook deliveries with AWS credentials or a JWT. The intake verifies X-Hub-Signature-256 ' +
        '(HMAC-SHA256 of the raw body with the webhook secret) and /signals checks a bearer or HMAC shared secret, ' +
        'both in constant time, before any state changes.',
    );
    const base = stage.url.replace(/\/$/, '');
    return { webhookUrl: `${base}/webhook`, signalsUrl: `${base}/signals`, httpApi: api };
  }
}

class FunctionUrlAccess extends WebhookAccess {
  public readonly kind = 'functionUrl';

  public constructor(private readonly signalsReservedConcurrency: number) {
    super();
    if (!Number.isInteger(signalsReservedConcurrency) || signalsReservedConcurrency < 1) {
      throw new Error('Reprise: signalsReservedConcurrency must be a positive integer');
    }
  }

  public bind(_scope: Construct, options: WebhookAccessBindOptions): WebhookEndpoints {
    // No stage throttles here: the signal intake's reserved concurrency caps a flood of posts
    // (Lambda answers 429 past it) and keeps it off the concurrency the webhook intake runs on.
    const signalFunction = options.signalHandler.node.defaultChild;
    if (!(signalFunction instanceof CfnFunction)) {
      throw new Error('Reprise: the signal intake must be a Lambda function of this stack to reserve its concurrency');
    }
    signalFunction.reservedConcurrentExecutions = this.signalsReservedConcurrency;
    // Deliveries carry no AWS credentials, so the URLs are public; the handlers authenticate every request.
    const webhook = options.webhookHandler.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
    const signals = options.signalHandler.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
    return { webhookUrl: webhook.url, signalsUrl: signals.url };
  }
}
