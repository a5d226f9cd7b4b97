import type { CfnOutput } from 'aws-cdk-lib';
import { EventBus, type IEventBus, type Rule } from 'aws-cdk-lib/aws-events';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as HandlerFunction } from 'aws-cdk-lib/aws-lambda';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { StackOutputName } from '../lib/config/stack-outputs.js';
import type { FunctionDeps } from './functions/deps.js';
import { Ec2SignalFunction } from './functions/ec2-signal.js';
import { IntakeFunction } from './functions/intake.js';
import { ReconcilerFunction } from './functions/reconciler.js';
import { SignalIntakeFunction } from './functions/signal-intake.js';
import { TIMEOUTS } from './functions/timeouts.js';
import { WorkerFunction } from './functions/worker.js';
import { observe } from './observability.js';
import { addStackOutputs } from './outputs.js';
import type { RepriseProps } from './props/reprise-props.js';
import { resolveProps } from './props/resolve.js';
import { signalDeadLetterQueue, WorkQueues } from './queues.js';
import { SpotDrill } from './spot-drill.js';
import { Storage } from './storage.js';

export type { RepriseAlarmThresholds } from './props/nested-props.js';
export type { RepriseProps } from './props/reprise-props.js';
export { WebhookAccess, type FunctionUrlAccessOptions, type HttpApiAccessOptions } from './webhook-access.js';
export { TIMEOUTS } from './functions/timeouts.js';

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
  /** The spot drill's FIS experiment template and role, with `spotDrill: true`. */
  public readonly spotDrill?: SpotDrill;

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
    this.signalDeadLetterQueue = signalDeadLetterQueue(this, 'SignalDeadLetterQueue');

    // Decisions, re-run outcomes and stuck-queued jobs go to this bus; an ARN names a bus of another account.
    this.eventBus = p.eventBusName.startsWith('arn:')
      ? EventBus.fromEventBusArn(this, 'EventBus', p.eventBusName)
      : EventBus.fromEventBusName(this, 'EventBus', p.eventBusName);

    // Each function owns its environment (from the schema) and its grants.
    const deps: FunctionDeps = { props: p, storage, workQueue: this.workQueue, eventBus: this.eventBus };
    const intake = new IntakeFunction(this, 'Intake', deps);
    const worker = new WorkerFunction(this, 'Worker', deps);
    const ec2Signal = new Ec2SignalFunction(this, 'Ec2Signal', {
      ...deps,
      deadLetterQueue: this.signalDeadLetterQueue,
    });
    const signalIntake = new SignalIntakeFunction(this, 'SignalIntake', deps);
    const reconciler = new ReconcilerFunction(this, 'Reconciler', deps);
    this.reconcileSchedule = reconciler.schedule;
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

    const observed = observe(this, {
      props: p,
      functions: {
        Intake: intake.function,
        Worker: worker.function,
        Ec2Signal: ec2Signal.function,
        SignalIntake: signalIntake.function,
        Reconciler: reconciler.function,
      },
      workQueue: this.workQueue,
      deadLetterQueues: { Work: this.deadLetterQueue, Signal: this.signalDeadLetterQueue },
      httpApi: endpoints.httpApi,
    });
    this.alarmTopic = observed.alarmTopic;
    this.dashboardUrl = observed.dashboardUrl;

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
    if (p.spotDrill) this.spotDrill = new SpotDrill(this, 'SpotDrill');
  }
}
