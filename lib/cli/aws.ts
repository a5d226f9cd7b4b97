import {
  CloudFormationClient,
  DescribeStacksCommand,
  type DescribeStacksCommandOutput,
} from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { repriseOutputs, type StackOutputName } from '../config/stack-outputs.js';
import { CliError, type CliIo, type CommandSender } from './io.js';
import { sqsRunQueue } from '../queue/open-sqs.js';
import type { RunQueue } from '../queue/run-queue.js';

export type { StackOutputName } from '../config/stack-outputs.js';

const cloudFormation = (io: CliIo): CommandSender => io.aws?.cloudFormation ?? new CloudFormationClient({});
const secretsManager = (io: CliIo): CommandSender => io.aws?.secretsManager ?? new SecretsManagerClient({});
const sqs = (io: CliIo): CommandSender => io.aws?.sqs ?? new SQSClient({});
/** The DynamoDB client the ledger commands read through (a test's fake when it passes one). */
export const dynamoClient = (io: CliIo): DynamoDBClient => io.aws?.dynamodb ?? new DynamoDBClient({});

/** The outputs of the `Reprise` construct in a stack (`DescribeStacks`), by name, wherever it sits. */
export async function stackOutputs(io: CliIo, stackName: string): Promise<Map<StackOutputName, string>> {
  let out: DescribeStacksCommandOutput;
  try {
    out = (await cloudFormation(io).send(
      new DescribeStacksCommand({ StackName: stackName }),
    )) as DescribeStacksCommandOutput;
  } catch (err) {
    if (/does not exist/.test((err as Error).message)) {
      throw new CliError(`stack "${stackName}" does not exist in this account and region (check AWS_REGION)`);
    }
    throw err;
  }
  const stack = out.Stacks?.[0];
  if (!stack) throw new CliError(`stack "${stackName}" does not exist in this account and region`);
  const found = repriseOutputs(stack.Outputs ?? []);
  if (!found.ok) {
    throw new CliError(
      `stack "${stackName}" holds more than one reprise construct (outputs ${found.keys.join(', ')} are each its ` +
        `${found.name}); the command reads one: deploy each construct in a stack of its own`,
    );
  }
  return found.outputs;
}

/** One output of the stack, or an error that says the stack lacks the construct or is not fully deployed. */
export function requireOutput(outputs: Map<StackOutputName, string>, key: StackOutputName, stackName: string): string {
  const v = outputs.get(key);
  if (!v) {
    throw new CliError(
      `stack "${stackName}" has no output ${key}: does it hold the Reprise construct, and is it fully deployed?`,
    );
  }
  return v;
}

/** Writes a secret's value (`PutSecretValue`): how `reprise setup` stores the App's credentials in the stack. */
export async function putSecret(io: CliIo, secretId: string, value: string): Promise<void> {
  await secretsManager(io).send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
}

/** The deployed run queue, as the intake sends to it. */
export const runQueue = (io: CliIo, queueUrl: string): RunQueue => sqsRunQueue(sqs(io), queueUrl);

const CREDENTIAL_ERRORS = new Set([
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
]);

/** One clear line for an AWS failure, or undefined when it is not one. */
export function describeAwsError(err: unknown): string | undefined {
  const e = err as { name?: string; message?: string; $metadata?: unknown };
  if (!e?.name) return undefined;
  // The SDK found none to send: nothing was refused.
  if (e.name === 'CredentialsProviderError') {
    return (
      `no AWS credentials found (${e.message}); set AWS_PROFILE, or AWS_ACCESS_KEY_ID and ` +
      "AWS_SECRET_ACCESS_KEY, for the stack's account"
    );
  }
  if (CREDENTIAL_ERRORS.has(e.name)) {
    return `AWS refused the credentials (${e.name}: ${e.message}); set AWS_PROFILE or AWS credentials for the stack's account`;
  }
  if (e.name === 'AccessDeniedException' || e.name === 'AccessDenied') {
    return `AWS denied access (${e.message}); the role needs read access to the stack, table or secret`;
  }
  if (e.name === 'ResourceNotFoundException') return `not found in AWS: ${e.message}`;
  if (/Region is missing/.test(e.message ?? '')) return 'no AWS region: set AWS_REGION or AWS_PROFILE';
  return e.$metadata ? `AWS ${e.name}: ${e.message}` : undefined;
}
