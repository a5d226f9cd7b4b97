import { SETTINGS } from '../lib/config/settings-schema.js';
import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { FunctionUrlAuthType, type IFunction } from 'aws-cdk-lib/aws-lambda';
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

/** Options of {@link WebhookAccess.httpApi}. */
export interface HttpApiAccessOptions {
  /**
   * Steady-state request rate (per second) of the default stage. A throttled delivery is
   * answered 429 and GitHub does not retry it by itself (the reconciler asks for it again).
   * @default 100
   */
  readonly rateLimit?: number;
  /**
   * Burst request limit of the default stage. A 256-job matrix (GitHub's largest) sends one
   * `workflow_job` delivery per job at once when it is queued, again when runners pick it up
   * and again on completion; 600 holds two such waves overlapping.
   * @default 600
   */
  readonly burstLimit?: number;
}

/** How deliveries and signals reach the intake functions. */
export abstract class WebhookAccess {
  /** An HTTP API with `POST /webhook` and `POST /signals`, stage throttling and access logs. */
  public static httpApi(options: HttpApiAccessOptions = {}): WebhookAccess {
    return new HttpApiAccess(options.rateLimit ?? DEFAULT_RATE_LIMIT, options.burstLimit ?? DEFAULT_BURST_LIMIT);
  }

  /**
   * One Lambda function URL per intake function: no API Gateway cost, but no stage throttling and no access log.
   * Both URLs accept any path; the handlers authenticate every request themselves.
   */
  public static functionUrl(): WebhookAccess {
    return new FunctionUrlAccess();
  }

  /** Short name, for descriptions and tests. */
  public abstract readonly kind: 'httpApi' | 'functionUrl';

  /** Creates the resources that expose the two handlers. */
  public abstract bind(scope: Construct, options: WebhookAccessBindOptions): WebhookEndpoints;
}

class HttpApiAccess extends WebhookAccess {
  public readonly kind = 'httpApi';

  public constructor(
    private readonly rateLimit: number,
    private readonly burstLimit: number,
  ) {
    super();
    if (!(rateLimit > 0) || !Number.isInteger(burstLimit) || burstLimit < 1) {
      throw new Error('Reprise: HTTP API rateLimit and burstLimit must be positive');
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
      throttle: { rateLimit: this.rateLimit, burstLimit: this.burstLimit },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format },
    });
    api.addRoutes({
      path: '/webhook',
      methods: [HttpMethod.POST],
      integration: new HttpLambdaIntegration('Webhook', options.webhookHandler),
    });
    api.addRoutes({
      path: '/signals',
      methods: [HttpMethod.POST],
      integration: new HttpLambdaIntegration('Signals', options.signalHandler),
    });
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

  public bind(_scope: Construct, options: WebhookAccessBindOptions): WebhookEndpoints {
    // Deliveries carry no AWS credentials, so the URLs are public; the handlers authenticate every request.
    const webhook = options.webhookHandler.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
    const signals = options.signalHandler.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
    return { webhookUrl: webhook.url, signalsUrl: signals.url };
  }
}
