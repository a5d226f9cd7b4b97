/**
 * The synthesized stack, created in moto from the template's own properties: each table, queue
 * and secret is made with the AWS SDK from its resource's Properties (a property this file does
 * not know fails loudly, so a template change is never silently left out), and each function's
 * Environment is resolved against what was created.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateTableCommand,
  DynamoDBClient,
  UpdateContinuousBackupsCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';

export const REGION = 'eu-west-1';
export const ACCOUNT = '123456789012';

export type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

export interface AwsClients {
  readonly dynamo: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly secrets: SecretsManagerClient;
}

export const awsConfig = (endpoint: string) => ({
  endpoint,
  region: REGION,
  credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
});

/** What a resource resolves to: `Ref` and each `Fn::GetAtt` attribute. */
interface Created {
  readonly ref: string;
  readonly atts: Record<string, string>;
}

export interface CreatedStack {
  readonly resources: Resources;
  readonly created: Map<string, Created>;
  /** Resolves a template value (Ref, Fn::GetAtt, Fn::Join, pseudo parameters) to a string. */
  resolve(value: unknown): string;
}

function only(id: string, props: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(props).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new Error(`${id}: the deployed test does not create ${unknown.join(', ')} yet`);
}

const PSEUDO: Record<string, string> = {
  'AWS::Region': REGION,
  'AWS::AccountId': ACCOUNT,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
};

export async function createStack(resources: Resources, aws: AwsClients): Promise<CreatedStack> {
  const created = new Map<string, Created>();
  const resolve = (v: unknown): string => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
    const o = v as Record<string, unknown>;
    if (typeof o.Ref === 'string') {
      const r = PSEUDO[o.Ref] ?? created.get(o.Ref)?.ref;
      if (r === undefined) throw new Error(`unresolved Ref ${o.Ref}`);
      return r;
    }
    if (Array.isArray(o['Fn::GetAtt'])) {
      const [id, att] = o['Fn::GetAtt'] as [string, string];
      const r = created.get(id)?.atts[att];
      if (r === undefined) throw new Error(`unresolved Fn::GetAtt ${id}.${att}`);
      return r;
    }
    if (Array.isArray(o['Fn::Join'])) {
      const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
      return parts.map(resolve).join(sep);
    }
    throw new Error(`cannot resolve ${JSON.stringify(v)}`);
  };
  const dependsOnMissing = (v: unknown): boolean => {
    try {
      resolve(v);
      return false;
    } catch {
      return true;
    }
  };

  for (const [id, r] of Object.entries(resources)) {
    const p = r.Properties ?? {};
    if (r.Type === 'AWS::DynamoDB::Table') {
      only(id, p, [
        'AttributeDefinitions',
        'BillingMode',
        'KeySchema',
        'DeletionProtectionEnabled',
        'PointInTimeRecoverySpecification',
        'TimeToLiveSpecification',
        'GlobalSecondaryIndexes',
      ]);
      const name = `${id}-${randomBytes(4).toString('hex')}`;
      const out = await aws.dynamo.send(
        new CreateTableCommand({
          TableName: name,
          AttributeDefinitions: p.AttributeDefinitions as never,
          KeySchema: p.KeySchema as never,
          BillingMode: p.BillingMode as never,
          ...(p.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: p.GlobalSecondaryIndexes as never } : {}),
          ...(p.DeletionProtectionEnabled !== undefined && {
            DeletionProtectionEnabled: !!p.DeletionProtectionEnabled,
          }),
        }),
      );
      const ttl = p.TimeToLiveSpecification as { AttributeName: string; Enabled: boolean } | undefined;
      if (ttl) await aws.dynamo.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: ttl }));
      const pitr = p.PointInTimeRecoverySpecification as { PointInTimeRecoveryEnabled: boolean } | undefined;
      if (pitr) {
        await aws.dynamo.send(
          new UpdateContinuousBackupsCommand({ TableName: name, PointInTimeRecoverySpecification: pitr }),
        );
      }
      created.set(id, { ref: name, atts: { Arn: out.TableDescription!.TableArn! } });
    } else if (r.Type === 'AWS::SecretsManager::Secret') {
      only(id, p, ['Description', 'SecretString', 'GenerateSecretString']);
      const gen = p.GenerateSecretString as { PasswordLength?: number; ExcludePunctuation?: boolean } | undefined;
      const value =
        (p.SecretString as string | undefined) ??
        randomBytes(64)
          .toString(gen?.ExcludePunctuation ? 'hex' : 'base64')
          .slice(0, gen?.PasswordLength ?? 32);
      const out = await aws.secrets.send(
        new CreateSecretCommand({ Name: id, Description: p.Description as string, SecretString: value }),
      );
      created.set(id, { ref: out.ARN!, atts: {} });
    }
  }

  // Queues in dependency order: a dead-letter queue before the queue whose redrive names it.
  let queues = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::SQS::Queue');
  while (queues.length > 0) {
    const ready = queues.filter(
      ([, r]) =>
        !dependsOnMissing(
          (r.Properties?.RedrivePolicy as { deadLetterTargetArn?: unknown })?.deadLetterTargetArn ?? '',
        ),
    );
    if (ready.length === 0) throw new Error(`queues wait on each other: ${queues.map(([id]) => id).join(', ')}`);
    for (const [id, r] of ready) {
      const p = r.Properties ?? {};
      only(id, p, [
        'FifoQueue',
        'ContentBasedDeduplication',
        'MessageRetentionPeriod',
        'RedrivePolicy',
        'SqsManagedSseEnabled',
        'VisibilityTimeout',
        'DeduplicationScope',
        'FifoThroughputLimit',
        'ReceiveMessageWaitTimeSeconds',
      ]);
      const attributes: Record<string, string> = {};
      for (const [k, v] of Object.entries(p)) {
        if (k === 'RedrivePolicy') {
          const rp = v as { deadLetterTargetArn: unknown; maxReceiveCount: number };
          attributes[k] = JSON.stringify({
            deadLetterTargetArn: resolve(rp.deadLetterTargetArn),
            maxReceiveCount: rp.maxReceiveCount,
          });
        } else attributes[k] = String(v);
      }
      const name = p.FifoQueue ? `${id}.fifo` : id;
      const { QueueUrl } = await aws.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
      const { Attributes } = await aws.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
      );
      created.set(id, { ref: QueueUrl!, atts: { Arn: Attributes!.QueueArn!, QueueName: name } });
    }
    queues = queues.filter(([id]) => !created.has(id));
  }

  // Functions are run by the test itself; their ARNs only name rule and mapping targets.
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type === 'AWS::Lambda::Function') {
      created.set(id, { ref: id, atts: { Arn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${id}` } });
    }
  }
  return { resources, created, resolve };
}

/** A function's template Environment, every value resolved against the created resources. */
export function functionEnvironment(stack: CreatedStack, id: string): Record<string, string> {
  const vars = (stack.resources[id]?.Properties?.Environment as { Variables?: Record<string, unknown> })?.Variables;
  if (!vars) throw new Error(`${id} has no environment`);
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, stack.resolve(v)]));
}
