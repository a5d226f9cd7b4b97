import { type CfnOutput, Duration } from 'aws-cdk-lib';
import { EventBus, type IEventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Function as HandlerFunction } from 'aws-cdk-lib/aws-lambda';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DECISION_NEED_MS } from '../lib/config/github-settings.js';
import { RepriseAlarms } from './alarms.js';
import { RepriseDashboard } from './dashboard.js';
import { Ec2SignalRules } from './ec2-signals.js';
import { HANDLERS, RepriseFunction, type HandlerSpec, type RepriseFunctionProps } from './functions.js';
import { RepriseMetrics } from './metrics.js';
import { addStackOutputs } from './outputs.js';
import { acknowledge } from './nag.js';
import type { FunctionName } from '../lib/config/settings-schema.js';
import type { StackOutputName } from '../lib/config/stack-outputs.js';
import { functionEnvironment, resolveProps, type RepriseProps } from './props.js';
import { acknowledgeDeadLetterQueue, secureQueue, WorkQueues } from './queues.js';
import { grantTableAccess, Storage } from './storage.js';

export { type RepriseAlarmThresholds, type RepriseProps } from './props.js';
export { WebhookAccess, type HttpApiAccessOptions } from './webhook-access.js';

/**
 * Sized to the work: the intake answers GitHub (10 s budget) without calling out; the worker waits
 * on GitHub. The worker takes new messages of a batch while a decision's need is left, so its
 * timeout is two such needs (every request's timeout times the round trips of a decision); the
 * queue's visibility timeout is six times the worker's (`WorkQueues`).
 */
export const TIMEOUTS = {
  intake: Duration.seconds(5),
  worker: Duration.millis(2 * DECISION_NEED_MS),
  ec2Signal: Duration.seconds(10),
  signalIntake: Duration.seconds(5),
  reconciler: Duration.minutes(2),
} as const;

/**
 * reprise in one construct: the webhook and signal endpoints, the FIFO work queue, the worker, the EC2 signal rules,
 * the table, the secrets, alarms and a dashboard. Embed it in any stack in the account that hosts the runners.
 */
export class Reprise extends Construct {
  public readonly table: Table;
  public readonly workQueue: Queue;
  public readonly deadLetterQueue: Queue;
  /** Receives EC2 events the signal function could not take, from EventBridge and from Lambda's async retries. */
  public readonly signalDeadLetterQueue: Queue;
  public readonly githubAppSecret: Secret;
  public readonly webhookSecret: Secret;
  public readonly signalSecret: Secret;
  public readonly intakeFunction: HandlerFunction;
  public readonly workerFunction: HandlerFunction;
  public readonly ec2SignalFunction: HandlerFunction;
  public readonly signalIntakeFunction: HandlerFunction;
  public readonly reconcilerFunction: HandlerFunction;
  /** Invokes the reconciler every `reconcileInterval`. */
  public readonly reconcileSchedule: Rule;
  public readonly alarmTopic: Topic;
  /** The bus decisions, re-run outcomes and stuck-queued jobs are published to (source `reprise`). */
  public readonly eventBus: IEventBus;
  /** URL to register as the GitHub App's webhook URL. */
  public readonly webhookUrl: string;
  /** URL external agents post runner signals to. */
  public readonly signalsUrl: string;
  /** Console link to the CloudWatch dashboard. */
  public readonly dashboardUrl: string;
  /**
   * The stack outputs the `reprise` command reads (`setup`, `status`, `decisions`, `report`,
   * `replay --stack`), added to the stack that holds the construct; each description is tagged with
   * its name, so the command finds them under any logical id.
   */
  public readonly outputs: Readonly<Record<StackOutputName, CfnOutput>>;

  public constructor(scope: Construct, id: string, props: RepriseProps = {}) {
    super(scope, id);
    const p = resolveProps(props);
    const storage = new Storage(this, 'Storage', { removalPolicy: p.removalPolicy });
    this.table = storage.table;
    this.githubAppSecret = storage.githubAppSecret;
    this.webhookSecret = storage.webhookSecret;
    this.signalSecret = storage.signalSecret;

    const queues = new WorkQueues(this, 'Work', {
      workerTimeout: TIMEOUTS.worker,
      maxReceiveCount: p.maxReceiveCount,
      maxWait: p.maxWait,
    });
    this.workQueue = queues.queue;
    this.deadLetterQueue = queues.deadLetterQueue;
    this.signalDeadLetterQueue = secureQueue(this, 'SignalDeadLetterQueue', { retentionPeriod: Duration.days(14) });
    acknowledgeDeadLetterQueue(this.signalDeadLetterQueue, 'EC2 events the signal function could not take');
    acknowledge(
      this.signalDeadLetterQueue,
      'AwsSolutions-SQS3',
      'This queue is a dead-letter queue: the DLQ of both EventBridge rule targets and the on-failure destination ' +
        'of the EC2 signal function. cdk-nag only recognises DLQs referenced by a redrive policy.',
    );

    const fn = (
      id: string,
      handler: HandlerSpec,
      rest: Omit<
        RepriseFunctionProps,
        'handler' | 'metricsNamespace' | 'logLevel' | 'logRetention' | 'removalPolicy' | 'bundleAwsSdk'
      > & { readonly bundleAwsSdk?: boolean },
    ) =>
      new RepriseFunction(this, id, {
        handler,
        metricsNamespace: p.metricsNamespace,
        logLevel: p.logLevel,
        logRetention: p.logRetention,
        removalPolicy: p.removalPolicy,
        bundleAwsSdk: p.bundleAwsSdk,
        ...rest,
      });
    const tableName = this.table.tableName;
    // Each function's settings come from the schema: every setting it reads, and nothing else.
    const settingsOf = (name: FunctionName) => functionEnvironment(name, p.settings);

    // Decisions, re-run outcomes and stuck-queued jobs go to this bus; an ARN names a bus of another account.
    this.eventBus = p.eventBusName.startsWith('arn:')
      ? EventBus.fromEventBusArn(this, 'EventBus', p.eventBusName)
      : EventBus.fromEventBusName(this, 'EventBus', p.eventBusName);

    const intake = fn('Intake', HANDLERS.intake, {
      description: 'reprise: verifies GitHub webhook deliveries and enqueues completed runs',
      noDeadLetterQueueReason:
        'Invoked synchronously by the HTTP API, where a Lambda DLQ never applies: a failure answers 5xx to GitHub, ' +
        'which keeps the failed delivery listed for redelivery (POST /app/hook/deliveries/{id}/attempts).',
      timeout: TIMEOUTS.intake,
      memorySize: 256,
      environment: {
        TABLE_NAME: tableName,
        QUEUE_URL: this.workQueue.queueUrl,
        WEBHOOK_SECRET_ARN: this.webhookSecret.secretArn,
        ...settingsOf('intake'),
      },
    });
    this.eventBus.grantPutEventsTo(intake.role);
    grantTableAccess(this.table, intake.role, 'intake');
    this.workQueue.grantSendMessages(intake.role);
    this.webhookSecret.grantRead(intake.role);

    const worker = fn('Worker', HANDLERS.worker, {
      description: 'reprise: classifies a completed run and re-runs jobs lost to infrastructure',
      noDeadLetterQueueReason:
        'Invoked by an SQS event source mapping, where a Lambda DLQ never applies: messages that fail ' +
        'maxReceiveCount times move to the FIFO dead-letter queue by the queue redrive policy.',
      timeout: TIMEOUTS.worker,
      memorySize: 512,
      environment: {
        TABLE_NAME: tableName,
        // Where a failed message's visibility is changed: the stack's URL is right in every partition.
        QUEUE_URL: this.workQueue.queueUrl,
        GITHUB_APP_SECRET_ARN: this.githubAppSecret.secretArn,
        // MAX_RECEIVE_COUNT among them lets the worker tell the last receive before the redrive.
        ...settingsOf('worker'),
      },
    });
    this.eventBus.grantPutEventsTo(worker.role);
    grantTableAccess(this.table, worker.role, 'worker');
    this.githubAppSecret.grantRead(worker.role);
    worker.function.addEventSource(
      new SqsEventSource(this.workQueue, {
        batchSize: p.workerBatchSize,
        reportBatchItemFailures: true,
        maxConcurrency: p.workerMaxConcurrency,
      }),
    );
    acknowledge(
      worker.function,
      'Serverless-LambdaEventSourceMappingDestination',
      'An SQS event source cannot take an on-failure destination: failed messages go to the FIFO dead-letter ' +
        'queue through the queue redrive policy after maxReceiveCount receives, and that queue is alarmed.',
    );

    const ec2Signal = fn('Ec2Signal', HANDLERS.ec2Signal, {
      description: 'reprise: records EC2 interruptions and terminations as runner signals',
      noDeadLetterQueueReason:
        'Invoked asynchronously by EventBridge and configured with an on-failure destination (the successor of the ' +
        'Lambda DLQ, with the error and request context) to the signal dead-letter queue; both at once would duplicate.',
      timeout: TIMEOUTS.ec2Signal,
      memorySize: 256,
      // The EC2 client loads in about 250 ms from the runtime's SDK and about 75 ms bundled and
      // tree-shaken: a spot warning gives two minutes, so this function always bundles its SDK.
      bundleAwsSdk: true,
      environment: {
        TABLE_NAME: tableName,
        ...settingsOf('ec2Signal'),
      },
      asyncFailureQueue: this.signalDeadLetterQueue,
    });
    grantTableAccess(this.table, ec2Signal.role, 'ec2Signal');
    // Reads the runner-name tags of the interrupted instance.
    ec2Signal.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }));
    acknowledge(
      ec2Signal.role,
      'AwsSolutions-IAM5[Resource::*]',
      'ec2:DescribeInstances supports no resource-level permissions (the Service Authorization Reference lists ' +
        'resource "*" only); the action is read-only and granted to the EC2 signal function alone.',
    );
    new Ec2SignalRules(this, 'Ec2Signals', {
      handler: ec2Signal.function,
      deadLetterQueue: this.signalDeadLetterQueue,
    });

    const signalIntake = fn('SignalIntake', HANDLERS.signalIntake, {
      description: 'reprise: records runner signals posted by external agents',
      noDeadLetterQueueReason:
        'Invoked synchronously by the HTTP API, where a Lambda DLQ never applies: a failure answers 5xx to the ' +
        'posting agent, which owns the retry.',
      timeout: TIMEOUTS.signalIntake,
      memorySize: 256,
      environment: {
        TABLE_NAME: tableName,
        SIGNAL_SECRET_ARN: this.signalSecret.secretArn,
        ...settingsOf('signalIntake'),
      },
    });
    grantTableAccess(this.table, signalIntake.role, 'signalIntake');
    this.signalSecret.grantRead(signalIntake.role);

    const reconciler = fn('Reconciler', HANDLERS.reconciler, {
      description: 'reprise: repairs orphaned claims, missed webhook deliveries and lost completions',
      noDeadLetterQueueReason:
        'Invoked by a schedule with an empty event: a failed sweep loses nothing, because the next scheduled sweep ' +
        'resumes from the cursors it keeps in DynamoDB; failed sweeps are counted (SweepFailed) and alarmed.',
      timeout: TIMEOUTS.reconciler,
      memorySize: 256,
      // The next schedule is the retry; an overlapping async retry would only repeat the same sweep.
      asyncRetryAttempts: 0,
      environment: {
        TABLE_NAME: tableName,
        QUEUE_URL: this.workQueue.queueUrl,
        GITHUB_APP_SECRET_ARN: this.githubAppSecret.secretArn,
        ...settingsOf('reconciler'),
      },
    });
    this.eventBus.grantPutEventsTo(reconciler.role);
    acknowledge(
      reconciler.function,
      'Serverless-LambdaAsyncFailureDestination',
      'The reconciler is invoked asynchronously by a schedule whose events are empty: a failed invocation has ' +
        'nothing to deliver anywhere. Failed sweeps are counted (SweepFailed) and alarmed, and the next tick resumes.',
    );
    grantTableAccess(this.table, reconciler.role, 'reconciler');
    this.githubAppSecret.grantRead(reconciler.role);
    this.workQueue.grantSendMessages(reconciler.role);
    this.reconcileSchedule = new Rule(this, 'ReconcileSchedule', {
      description: 'reprise: reconciler sweep',
      schedule: Schedule.rate(p.reconcileInterval),
      targets: [new LambdaFunction(reconciler.function, { retryAttempts: 2, maxEventAge: Duration.minutes(4) })],
    });
    acknowledge(
      this.reconcileSchedule,
      'Serverless-EventBusDLQ',
      'The target is a schedule tick with an empty event: an undelivered tick holds nothing to inspect or redrive, ' +
        'and the next tick a few minutes later does the same work from the cursors stored in DynamoDB.',
    );

    this.intakeFunction = intake.function;
    this.workerFunction = worker.function;
    this.ec2SignalFunction = ec2Signal.function;
    this.signalIntakeFunction = signalIntake.function;
    this.reconcilerFunction = reconciler.function;

    const endpoints = p.webhookAccess.bind(this, {
      webhookHandler: intake.function,
      signalHandler: signalIntake.function,
      logRetention: p.logRetention,
      removalPolicy: p.removalPolicy,
    });
    this.webhookUrl = endpoints.webhookUrl;
    this.signalsUrl = endpoints.signalsUrl;

    const metrics = new RepriseMetrics(p.metricsNamespace);
    const functions = {
      Intake: intake.function,
      Worker: worker.function,
      Ec2Signal: ec2Signal.function,
      SignalIntake: signalIntake.function,
      Reconciler: reconciler.function,
    };
    const deadLetterQueues = { Work: this.deadLetterQueue, Signal: this.signalDeadLetterQueue };
    const alarms = new RepriseAlarms(this, 'Alarms', {
      metrics,
      thresholds: p.alarms,
      functions,
      workQueue: this.workQueue,
      deadLetterQueues,
      alarmEmail: p.alarmEmail,
    });
    this.alarmTopic = alarms.topic;
    const dashboard = new RepriseDashboard(this, 'Dashboard', {
      metrics,
      metricsNamespace: p.metricsNamespace,
      functions,
      workQueue: this.workQueue,
      deadLetterQueues,
      httpApi: endpoints.httpApi,
    });
    this.dashboardUrl = dashboard.url;

    const values: Record<StackOutputName, string> = {
      WebhookUrl: this.webhookUrl,
      SignalsUrl: this.signalsUrl,
      GitHubAppSecretName: this.githubAppSecret.secretName,
      WebhookSecretName: this.webhookSecret.secretName,
      SignalSecretName: this.signalSecret.secretName,
      DashboardUrl: this.dashboardUrl,
      TableName: this.table.tableName,
      QueueUrl: this.workQueue.queueUrl,
      AlarmTopicArn: this.alarmTopic.topicArn,
    };
    this.outputs = addStackOutputs(this, values);
  }
}
