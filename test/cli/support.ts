import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, type SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AwsClients, CliIo } from '../../lib/cli/io.js';
import type { DescribedOutput } from '../../lib/config/stack-outputs.js';

export interface CapturedIo extends CliIo {
  out(): string;
  err(): string;
}

/** A CLI io that keeps what the command printed. */
export function captureIo(env: Record<string, string | undefined>, aws?: AwsClients): CapturedIo {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env,
    ...(aws && { aws }),
    out: () => out,
    err: () => err,
  };
}

export async function waitFor<T>(probe: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An AWS service error as the SDK throws it. */
const awsError = (name: string, message: string): Error => Object.assign(new Error(message), { name, $metadata: {} });

/** CloudFormation in memory: DescribeStacks over the stacks it was given (outputs by key, or as described). */
export class FakeCloudFormation {
  readonly calls: string[] = [];
  constructor(private readonly stacks: Record<string, Record<string, string> | readonly DescribedOutput[]>) {}
  async send(cmd: object): Promise<unknown> {
    if (!(cmd instanceof DescribeStacksCommand)) throw new Error(`unexpected ${cmd.constructor.name}`);
    const name = cmd.input.StackName ?? '';
    this.calls.push(name);
    const outputs = this.stacks[name];
    if (!outputs) throw awsError('ValidationError', `Stack with id ${name} does not exist`);
    return {
      Stacks: [
        {
          StackName: name,
          Outputs: Array.isArray(outputs)
            ? outputs
            : Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
        },
      ],
    };
  }
}

/** Secrets Manager in memory: PutSecretValue on secrets that exist. */
export class FakeSecretsManager {
  readonly values = new Map<string, string>();
  constructor(names: readonly string[]) {
    for (const n of names) this.values.set(n, 'placeholder');
  }
  async send(cmd: object): Promise<unknown> {
    if (!(cmd instanceof PutSecretValueCommand)) throw new Error(`unexpected ${cmd.constructor.name}`);
    const id = cmd.input.SecretId ?? '';
    if (!this.values.has(id)) throw awsError('ResourceNotFoundException', `Secrets Manager can't find ${id}`);
    this.values.set(id, cmd.input.SecretString ?? '');
    return { Name: id, VersionId: 'v2' };
  }
}

/** SQS in memory: keeps what was sent. */
export class FakeSqs {
  readonly sent: SendMessageCommandInput[] = [];
  async send(cmd: object): Promise<unknown> {
    if (!(cmd instanceof SendMessageCommand)) throw new Error(`unexpected ${cmd.constructor.name}`);
    this.sent.push(cmd.input);
    return { MessageId: `m-${this.sent.length}` };
  }
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
