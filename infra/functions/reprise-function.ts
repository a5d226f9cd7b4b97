import { existsSync } from 'node:fs';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FUNCTION_PROCESS_ENV } from '../../lib/config/function-env.js';
import { envOf } from '../../lib/config/settings-schema.js';
import { acknowledge } from '../nag.js';
import { BUNDLE, type HandlerSpec, PREBUILT_DIR, prebuiltName, PROJECT_ROOT } from './handlers.js';

export interface RepriseFunctionProps {
  readonly handler: HandlerSpec;
  readonly description: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  /** Non-secret configuration only: secrets are passed as ARNs and read at run time. */
  readonly environment: Record<string, string>;
  readonly metricsNamespace: string;
  readonly logLevel: string;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** For asynchronously invoked functions: the on-failure destination after Lambda's own retries. */
  readonly asyncFailureQueue?: IQueue;
  /** For asynchronously invoked functions without a failure queue: Lambda's own retries (0–2). */
  readonly asyncRetryAttempts?: number;
  /** Bundle the AWS SDK instead of importing the runtime's copy. */
  readonly bundleAwsSdk: boolean;
  /** Why the function has no Lambda dead-letter queue (cdk-nag Serverless-LambdaDLQ). */
  readonly noDeadLetterQueueReason: string;
}

/**
 * A bundled Node.js handler with its own role (write access to its own log group and nothing else
 * until a grant adds it) and its own log group with a retention.
 */
export class RepriseFunction extends Construct {
  public readonly function: LambdaFunction;
  public readonly logGroup: LogGroup;
  public readonly role: Role;

  public constructor(scope: Construct, id: string, props: RepriseFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    // An own role instead of AWSLambdaBasicExecutionRole, whose log permissions span every log group.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `reprise ${props.handler.serviceName}`,
    });
    this.logGroup.grantWrite(this.role);

    const common = {
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      role: this.role,
      logGroup: this.logGroup,
      ...(props.asyncFailureQueue
        ? { onFailure: new SqsDestination(props.asyncFailureQueue), retryAttempts: 2, maxEventAge: Duration.hours(1) }
        : {}),
      ...(props.asyncRetryAttempts !== undefined ? { retryAttempts: props.asyncRetryAttempts } : {}),
      environment: {
        ...props.environment,
        [FUNCTION_PROCESS_ENV.serviceName]: props.handler.serviceName,
        [envOf('metricsNamespace')]: props.metricsNamespace,
        [envOf('logLevel')]: props.logLevel,
        [FUNCTION_PROCESS_ENV.nodeOptions]: '--enable-source-maps',
      },
    };
    const prebuilt = `${PREBUILT_DIR}${prebuiltName(props.handler.entry, props.bundleAwsSdk)}`;
    if (existsSync(PREBUILT_DIR) && !existsSync(`${prebuilt}/index.mjs`)) {
      throw new Error(
        `reprise: this package has no bundle ${prebuiltName(props.handler.entry, props.bundleAwsSdk)} in ` +
          `${PREBUILT_DIR}: it is incomplete (npm run build bundles every handler into dist/lambda/).`,
      );
    }
    // The published package ships its bundles: a consuming app needs neither these sources nor esbuild.
    this.function = existsSync(`${prebuilt}/index.mjs`)
      ? new LambdaFunction(this, 'Function', { ...common, code: Code.fromAsset(prebuilt), handler: 'index.handler' })
      : new NodejsFunction(this, 'Function', {
          ...common,
          entry: `${PROJECT_ROOT}functions/${props.handler.entry}.ts`,
          handler: 'handler',
          projectRoot: PROJECT_ROOT,
          depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
          bundling: {
            forceDockerBundling: false,
            bundleAwsSDK: props.bundleAwsSdk,
            format: OutputFormat.ESM,
            target: BUNDLE.target,
            minify: true,
            sourceMap: true,
            // Stack traces need file and line, not the sources: keeps the map small.
            sourcesContent: false,
            // Sizes are recorded by the bundle test (bench/bundle-sizes.json); synth output stays quiet.
            logLevel: LogLevel.WARNING,
            mainFields: [...BUNDLE.mainFields],
            banner: BUNDLE.banner,
          },
        });
    const runtimeReason =
      'Pinned to nodejs22.x on purpose: the bundle targets node22 and the code is tested on Node 20/22; Node.js 22 ' +
      'is an LTS line supported by Lambda until 2027, and moving to a newer runtime is a reviewed change made ' +
      'together with the test matrix, not a side effect of a library upgrade.';
    acknowledge(this.function, 'AwsSolutions-L1', runtimeReason);
    acknowledge(this.function, 'Serverless-LambdaLatestVersion', runtimeReason);
    acknowledge(
      this.function,
      'Serverless-LambdaTracing',
      'Correlation is carried by structured logs (delivery id, run_id, run_attempt) and EMF metrics; X-Ray would ' +
        'add per-trace cost and an IAM resource wildcard (xray:PutTraceSegments) for little gain on a short path.',
    );
    acknowledge(this.function, 'Serverless-LambdaDLQ', props.noDeadLetterQueueReason);
  }
}
