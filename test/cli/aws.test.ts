import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { describeAwsError, dynamoClient, putSecret, requireOutput, runQueue, stackOutputs } from '../../lib/cli/aws.js';
import { CliError } from '../../lib/cli/io.js';
import { stackOutputDescription } from '../../lib/config/stack-outputs.js';
import { messageGroupId } from '../../lib/webhook/run-message.js';
import type { RunMessage } from '../../lib/model.js';
import { captureIo, FakeCloudFormation, FakeSecretsManager, FakeSqs } from './support.js';

const BIN = join(import.meta.dirname, '../../lib/cli/bin.mjs');

describe('AWS without credentials', () => {
  const home = mkdtempSync(join(tmpdir(), 'reprise-no-aws-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('"AWS refused the credentials" is not said when no credentials were found', async () => {
    // The SDK's own provider chain, on a machine with no profile, no keys and no instance role.
    const failed = await promisify(execFile)(process.execPath, [BIN, 'decisions', '--stack', 'Runners'], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, AWS_REGION: 'eu-west-1', AWS_EC2_METADATA_DISABLED: 'true' },
      timeout: 60_000,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1 });
    const stderr = (failed as { stderr: string }).stderr;
    expect(stderr).toContain('reprise decisions: no AWS credentials found');
    expect(stderr).toContain('set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
    expect(stderr).not.toContain('refused');
  });
});

describe('aws: the outputs of the stack', () => {
  const tagged = (key: string, name: Parameters<typeof stackOutputDescription>[0], value: string) => ({
    OutputKey: key,
    OutputValue: value,
    Description: stackOutputDescription(name),
  });

  it("reprise's outputs by their tag, wherever the construct sits in the stack", async () => {
    const cf = new FakeCloudFormation({
      Runners: [tagged('RepriseTableName1A2B', 'TableName', 'runners-table'), { OutputKey: 'Other', OutputValue: 'x' }],
    });
    const out = await stackOutputs(captureIo({}, { cloudFormation: cf }), 'Runners');
    expect(out.get('TableName')).toBe('runners-table');
    expect([...out.keys()]).toEqual(['TableName']);
    expect(cf.calls).toEqual(['Runners']);
  });

  it('a stack that does not exist names the stack and the region to check', async () => {
    const io = captureIo({}, { cloudFormation: new FakeCloudFormation({}) });
    await expect(stackOutputs(io, 'Nope')).rejects.toThrow(
      'stack "Nope" does not exist in this account and region (check AWS_REGION)',
    );
  });

  it('two constructs in one stack are refused by name, the keys listed', async () => {
    const cf = new FakeCloudFormation({
      Two: [tagged('ATable', 'TableName', 'a'), tagged('BTable', 'TableName', 'b')],
    });
    await expect(stackOutputs(captureIo({}, { cloudFormation: cf }), 'Two')).rejects.toThrow(
      'stack "Two" holds more than one reprise construct (outputs ATable, BTable are each its TableName)',
    );
  });

  it('an output the command needs and the stack lacks is a CliError naming both', () => {
    const outputs = new Map([['TableName', 't']] as const);
    expect(requireOutput(outputs, 'TableName', 'S')).toBe('t');
    expect(() => requireOutput(outputs, 'QueueUrl', 'S')).toThrow(CliError);
    expect(() => requireOutput(outputs, 'QueueUrl', 'S')).toThrow(
      'stack "S" has no output QueueUrl: does it hold the Reprise construct, and is it fully deployed?',
    );
  });
});

describe('aws: what the CLI sends', () => {
  it('a secret is put by its id; one that does not exist is an AWS error described as not found', async () => {
    const sm = new FakeSecretsManager(['app-secret']);
    const io = captureIo({}, { secretsManager: sm });
    await putSecret(io, 'app-secret', '{"appId":"1"}');
    expect(sm.values.get('app-secret')).toBe('{"appId":"1"}');
    const err = await putSecret(io, 'missing', 'x').catch((e: unknown) => e);
    expect(describeAwsError(err)).toBe("not found in AWS: Secrets Manager can't find missing");
  });

  it('the deployed queue takes a run message as the intake sends it: grouped by run, deduplicated by delivery', async () => {
    const sqs = new FakeSqs();
    const message = {
      v: 1,
      deliveryId: 'd-1',
      installationId: 1,
      repository: { id: 9, owner: 'acme', name: 'web' },
      runId: 77,
      runAttempt: 1,
    } as RunMessage;
    await runQueue(captureIo({}, { sqs }), 'https://sqs.example/q.fifo').send(message, messageGroupId(message), 'd-1');
    expect(sqs.sent).toHaveLength(1);
    expect(sqs.sent[0]).toMatchObject({ QueueUrl: 'https://sqs.example/q.fifo', MessageDeduplicationId: 'd-1' });
    expect(sqs.sent[0]?.MessageGroupId).toContain('77');
    expect(JSON.parse(sqs.sent[0]?.MessageBody ?? '{}')).toEqual(message);
  });

  it("the DynamoDB client given is the one used; without one, the SDK's own", () => {
    const given = new DynamoDBClient({ region: 'eu-west-1' });
    expect(dynamoClient(captureIo({}, { dynamodb: given }))).toBe(given);
    const own = dynamoClient(captureIo({}));
    expect(own).toBeInstanceOf(DynamoDBClient);
    expect(own).not.toBe(given);
  });
});

describe('aws: one line for an AWS failure', () => {
  const aws = (name: string, message: string) => Object.assign(new Error(message), { name, $metadata: {} });

  it('refused credentials, denied access, a missing region and any other service error each say what to do', () => {
    expect(describeAwsError(aws('ExpiredTokenException', 'expired'))).toBe(
      "AWS refused the credentials (ExpiredTokenException: expired); set AWS_PROFILE or AWS credentials for the stack's account",
    );
    expect(describeAwsError(aws('AccessDeniedException', 'no dynamodb:Query'))).toBe(
      'AWS denied access (no dynamodb:Query); the role needs read access to the stack, table or secret',
    );
    expect(describeAwsError(Object.assign(new Error('Region is missing'), { name: 'Error' }))).toBe(
      'no AWS region: set AWS_REGION or AWS_PROFILE',
    );
    expect(describeAwsError(aws('ThrottlingException', 'slow down'))).toBe('AWS ThrottlingException: slow down');
  });

  it("no credentials at all is not a refusal; a fault that is not AWS's is not described", () => {
    const none = Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
    });
    expect(describeAwsError(none)).toMatch(
      /^no AWS credentials found \(Could not load credentials from any providers\)/,
    );
    expect(describeAwsError(none)).not.toContain('refused');
    expect(describeAwsError(new TypeError('x'))).toBeUndefined();
    expect(describeAwsError(undefined)).toBeUndefined();
  });
});
