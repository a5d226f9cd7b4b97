/**
 * One deployment in moto: the synthesized stack's resources created from its template, the
 * GitHub simulator as GitHub, and one warm instance of each function running its bundle.
 */
import {
  CreateEventBusCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  DeleteMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Template } from 'aws-cdk-lib/assertions';
import { propsFromContext } from '../../infra/context.js';
import { RepriseStack } from '../../infra/reprise-stack.js';
import { HANDLERS } from '../../infra/functions/handlers.js';
import { GitHubSimulator } from '../sim/index.js';
import { APP_ID, testPrivateKey } from '../support/harness.js';
import { testApp } from '../infra/synth.js';
import { bundleFor, LambdaInstance, pollOnce } from './functions.js';
import { type MotoServer, startMoto } from './moto-server.js';
import { startTableRecorder, type TableCall, type TableRecorder } from './table-recorder.js';
import {
  ACCOUNT,
  awsConfig,
  createStack,
  type CreatedStack,
  functionEnvironment,
  REGION,
  type Resources,
} from './stack.js';

export type FunctionKey = keyof typeof HANDLERS;

export interface TestQueue {
  readonly url: string;
  readonly arn: string;
  /** Every message's JSON body, taken off the queue. */
  take(): Promise<Record<string, unknown>[]>;
}

async function testQueue(sqs: SQSClient, name: string): Promise<TestQueue> {
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] })))
    .Attributes!.QueueArn!;
  const policy = { Statement: [{ Effect: 'Allow', Principal: '*', Action: 'sqs:SendMessage', Resource: arn }] };
  await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Policy: JSON.stringify(policy) } }));
  return {
    url,
    arn,
    take: async () => {
      const out: Record<string, unknown>[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
        if (Messages.length === 0) return out;
        for (const m of Messages) {
          out.push(JSON.parse(m.Body!) as Record<string, unknown>);
          await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
        }
      }
    },
  };
}

export interface Deployment {
  readonly moto: MotoServer;
  readonly sim: GitHubSimulator;
  readonly stack: CreatedStack;
  readonly sqs: SQSClient;
  readonly dynamo: DynamoDBClient;
  readonly secrets: SecretsManagerClient;
  readonly tableName: string;
  readonly workQueue: { url: string; arn: string };
  readonly deadLetterQueue: { url: string; arn: string };
  readonly appSecretArn: string;
  /** The App secret's value as the template creates it: the placeholder before the operator sets it. */
  readonly appSecretPlaceholder: string;
  readonly webhookSecret: string;
  readonly batchSize: number;
  /** Each function's template Environment, resolved. */
  readonly environments: Record<FunctionKey, Record<string, string>>;
  readonly fn: Record<FunctionKey, LambdaInstance>;
  /** Each function's logical id in the template. */
  readonly ids: Record<FunctionKey, string>;
  /** Every DynamoDB request each function's bundle sent, through its own recording proxy. */
  readonly tableCalls: Record<FunctionKey, TableCall[]>;
  /** A new instance of a function: a cold start with the same environment, and `extra` over it when given. */
  coldStart(key: FunctionKey, extra?: Record<string, string>): Promise<LambdaInstance>;
  putAppSecret(value: string): Promise<void>;
  /** The event source mapping, until the queue has nothing visible. */
  drain(worker?: LambdaInstance): Promise<number>;
  pollOnce(worker?: LambdaInstance): ReturnType<typeof pollOnce>;
  /** Events the bus delivered to the test's rule since the last call. */
  busEvents(): Promise<Record<string, unknown>[]>;
  /** A standard queue that EventBridge may send to, and what it holds. */
  queue(name: string): Promise<TestQueue>;
  close(): Promise<void>;
}

const idOf = (resources: Resources, serviceName: string): string => {
  const found = Object.entries(resources).filter(
    ([, r]) =>
      r.Type === 'AWS::Lambda::Function' &&
      (r.Properties?.Environment as { Variables?: Record<string, unknown> })?.Variables?.POWERTOOLS_SERVICE_NAME ===
        serviceName,
  );
  if (found.length !== 1) throw new Error(`expected one function ${serviceName}, got ${found.length}`);
  return found[0]![0];
};

export async function deploy(motoPath: string, context: Record<string, string>): Promise<Deployment> {
  const sim = await GitHubSimulator.start();
  // Synthesized as `cdk synth -c key=value` does.
  const { app } = testApp({ context });
  const { stackName, props } = propsFromContext(app.node);
  const cdkStack = new RepriseStack(app, stackName, { reprise: props, env: { account: ACCOUNT, region: REGION } });
  const resources = Template.fromStack(cdkStack).toJSON().Resources as Resources;

  const moto = await startMoto(motoPath);
  const cfg = awsConfig(moto.url);
  const sqs = new SQSClient(cfg);
  const dynamo = new DynamoDBClient(cfg);
  const secrets = new SecretsManagerClient(cfg);
  const events = new EventBridgeClient(cfg);
  const stack = await createStack(resources, { sqs, dynamo, secrets });

  const ids = Object.fromEntries(
    (Object.keys(HANDLERS) as FunctionKey[]).map((k) => [k, idOf(resources, HANDLERS[k].serviceName)]),
  ) as Record<FunctionKey, string>;
  const environments = Object.fromEntries(
    (Object.keys(ids) as FunctionKey[]).map((k) => [k, functionEnvironment(stack, ids[k])]),
  ) as Record<FunctionKey, Record<string, string>>;

  // The queue the worker's mapping reads, its dead-letter queue, and the mapping's batch size.
  const mapping = Object.values(resources).find((r) => r.Type === 'AWS::Lambda::EventSourceMapping')!.Properties!;
  const queueId = (mapping.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const dlqId = (resources[queueId]!.Properties!.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': [string] } })
    .deadLetterTargetArn['Fn::GetAtt'][0];
  const q = (id: string) => ({ url: stack.resolve({ Ref: id }), arn: stack.resolve({ 'Fn::GetAtt': [id, 'Arn'] }) });
  const workQueue = q(queueId);
  const deadLetterQueue = q(dlqId);

  // The bus the functions publish to (EVENT_BUS_NAME), created as an operator would, and a rule
  // that copies reprise's events to a queue the test reads.
  const busName = environments.worker.EVENT_BUS_NAME!;
  if (busName !== 'default') await events.send(new CreateEventBusCommand({ Name: busName }));
  const sink = await testQueue(sqs, 'test-bus-sink');
  await events.send(
    new PutRuleCommand({
      Name: 'test-reprise-events',
      EventBusName: busName,
      EventPattern: JSON.stringify({ source: ['reprise'] }),
    }),
  );
  await events.send(
    new PutTargetsCommand({
      Rule: 'test-reprise-events',
      EventBusName: busName,
      Targets: [{ Id: 'sink', Arn: sink.arn }],
    }),
  );

  // The operator's steps after the deploy: the App's credentials into its secret, the generated
  // webhook secret into the App's settings (here: the test signs with it).
  const appSecretArn = environments.worker.GITHUB_APP_SECRET_ARN!;
  const appSecretPlaceholder = String(
    (await secrets.send(new GetSecretValueCommand({ SecretId: appSecretArn }))).SecretString,
  );
  const putAppSecret = async (value: string) => {
    await secrets.send(new PutSecretValueCommand({ SecretId: appSecretArn, SecretString: value }));
  };
  await putAppSecret(JSON.stringify({ appId: APP_ID, privateKey: testPrivateKey() }));
  const webhookSecret = String(
    (await secrets.send(new GetSecretValueCommand({ SecretId: environments.intake.WEBHOOK_SECRET_ARN! }))).SecretString,
  );

  const timeouts = Object.fromEntries(
    (Object.keys(ids) as FunctionKey[]).map((k) => [k, Number(resources[ids[k]]!.Properties!.Timeout) * 1000]),
  ) as Record<FunctionKey, number>;
  /**
   * The template's Environment, and only two things besides: the AWS endpoint (moto, as
   * AWS_ENDPOINT_URL points every SDK client at it) and where GitHub is. The construct refuses
   * a GitHub URL that is not https, so the template names GitHub's own; GitHub here is the
   * simulator, on 127.0.0.1.
   */
  const recorders = {} as Record<FunctionKey, TableRecorder>;
  for (const k of Object.keys(ids) as FunctionKey[]) recorders[k] = await startTableRecorder(moto.url);
  const processEnv = (k: FunctionKey): Record<string, string> => {
    const env = { ...environments[k] };
    if (env.GITHUB_API_URL !== undefined) env.GITHUB_API_URL = sim.url;
    if (env.GITHUB_GRAPHQL_URL !== undefined) env.GITHUB_GRAPHQL_URL = sim.graphqlUrl;
    return {
      ...env,
      AWS_ENDPOINT_URL: moto.url,
      // The table through the function's own recorder, which forwards to moto.
      AWS_ENDPOINT_URL_DYNAMODB: recorders[k].url,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_LAMBDA_FUNCTION_NAME: ids[k],
      AWS_LAMBDA_LOG_STREAM_NAME: `${k}-${Date.now()}`,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
  };
  const coldStart = (k: FunctionKey, extra: Record<string, string> = {}) =>
    LambdaInstance.start(bundleFor(HANDLERS[k].serviceName), { ...processEnv(k), ...extra }, timeouts[k]);
  const started: LambdaInstance[] = [];
  const fn = {} as Record<FunctionKey, LambdaInstance>;
  for (const k of Object.keys(ids) as FunctionKey[]) started.push((fn[k] = await coldStart(k)));

  const batchSize = Number(mapping.BatchSize);
  const poll = (worker = fn.worker) => pollOnce(sqs, workQueue, batchSize, worker);
  return {
    moto,
    sim,
    stack,
    sqs,
    dynamo,
    secrets,
    tableName: environments.worker.TABLE_NAME!,
    workQueue,
    deadLetterQueue,
    appSecretArn,
    appSecretPlaceholder,
    webhookSecret,
    batchSize,
    environments,
    fn,
    ids,
    tableCalls: Object.fromEntries((Object.keys(ids) as FunctionKey[]).map((k) => [k, recorders[k].calls])) as Record<
      FunctionKey,
      TableCall[]
    >,
    coldStart: async (k, extra) => {
      const i = await coldStart(k, extra);
      started.push(i);
      return i;
    },
    putAppSecret,
    pollOnce: poll,
    drain: async (worker) => {
      // Until nothing is visible or in flight: a run waiting its turn comes back on its own.
      let n = 0;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const { records } = await poll(worker);
        n += records.length;
        if (records.length > 0) continue;
        const { Attributes: a = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: workQueue.url,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        if (Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible) === 0) return n;
        await sleep(200);
      }
      throw new Error('the work queue did not drain within a minute');
    },
    busEvents: () => sink.take(),
    queue: (name) => testQueue(sqs, name),
    close: async () => {
      await Promise.all(started.map((i) => i.close()));
      await Promise.all(Object.values(recorders).map((r) => r.close()));
      await sim.close();
      await moto.close();
    },
  };
}
