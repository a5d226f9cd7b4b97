/**
 * The bundled handlers of `dist/lambda/`, each run in its own process with its function's
 * template Environment, and what Lambda itself does around them here: the SQS event source
 * mapping (receive, invoke, delete what succeeded) and the HTTP API's event.
 */
import { recordOf } from '../support/sqs/sqs-record.js';
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeleteMessageCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { HANDLERS } from '../../infra/functions/handlers.js';
import { REGION } from './stack.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface LogRecord {
  readonly level?: string;
  readonly message?: string;
  readonly [key: string]: unknown;
}

/** The bundle a function runs: its entry by the service name the template gives it. */
export function bundleFor(serviceName: string): string {
  const spec = Object.values(HANDLERS).find((h) => h.serviceName === serviceName);
  if (!spec) throw new Error(`no handler has service name ${serviceName}`);
  // The construct deploys the bundle with its SDK unless told otherwise (bundleAwsSdk: false).
  for (const dir of [`${spec.entry}-sdk`, spec.entry]) {
    const file = join(ROOT, 'dist/lambda', dir, 'index.mjs');
    if (existsSync(file)) return file;
  }
  throw new Error(`no bundle for ${spec.entry} in dist/lambda/: run npm run build`);
}

/** One warm instance of a function. */
export class LambdaInstance {
  readonly logs: LogRecord[] = [];
  /** EMF metric documents the function printed. */
  readonly metrics: Record<string, unknown>[] = [];
  private seq = 0;
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly child: ChildProcess,
    readonly timeoutMs: number,
  ) {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) this.take(line);
    });
    // Powertools writes warnings and errors to stderr: both streams carry JSON lines.
    let errBuffered = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      errBuffered += chunk.toString();
      const lines = errBuffered.split('\n');
      errBuffered = lines.pop() ?? '';
      for (const line of lines) this.take(line, 'stderr');
    });
    child.on('message', (m: { id?: string; result?: unknown; error?: { name: string; message: string } }) => {
      const p = m.id === undefined ? undefined : this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id!);
      if (m.error) p.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
      else p.resolve(m.result);
    });
  }

  private take(line: string, stream = 'stdout'): void {
    if (!line.trim().startsWith('{')) {
      if (stream === 'stderr' && line.trim()) this.logs.push({ level: 'stderr', message: line });
      return;
    }
    try {
      const doc = JSON.parse(line) as Record<string, unknown>;
      if (doc._aws) this.metrics.push(doc);
      else this.logs.push({ ...doc, level: String(doc.level ?? '').toLowerCase() } as LogRecord);
    } catch {
      this.logs.push({ level: 'raw', message: line });
    }
  }

  static async start(bundle: string, env: Record<string, string>, timeoutMs: number): Promise<LambdaInstance> {
    const child = fork(join(ROOT, 'test/deployed/lambda-host.mjs'), [bundle], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const instance = new LambdaInstance(child, timeoutMs);
    const ready = await new Promise<{ ready: boolean; error?: { message: string } }>((resolve, reject) => {
      child.once('message', resolve as (m: unknown) => void);
      child.once('exit', (code) => reject(new Error(`${bundle} exited (${code}) before it loaded`)));
    });
    if (!ready.ready) throw new Error(`${bundle} failed its cold start: ${ready.error?.message}`);
    return instance;
  }

  invoke<T = unknown>(event: unknown): Promise<T> {
    const id = `inv-${++this.seq}`;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, event, timeoutMs: this.timeoutMs });
    });
  }

  /** Every name the function's code has read from process.env so far. */
  envReads(): Promise<string[]> {
    return new Promise((resolve, reject) => {
      this.pending.set('env-reads', { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id: 'env-reads' });
    });
  }

  named(message: string): LogRecord[] {
    return this.logs.filter((l) => l.message === message);
  }

  /** The sum of one EMF metric the function printed. */
  metric(name: string): number {
    let sum = 0;
    for (const doc of this.metrics) {
      const v = doc[name];
      if (typeof v === 'number') sum += v;
      else if (Array.isArray(v)) sum += v.reduce((a: number, b: number) => a + b, 0);
    }
    return sum;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}

/** An SQS message as Lambda's event source hands it to the function: the SQS queue's own record. */
export const toRecord = (m: Message, queueArn: string): SQSRecord => recordOf(m, { queueArn, region: REGION });

/** The SQS event source mapping: one receive of up to BatchSize, one invocation, the successes deleted. */
export async function pollOnce(
  sqs: SQSClient,
  queue: { url: string; arn: string },
  batchSize: number,
  worker: LambdaInstance,
): Promise<{ records: SQSRecord[]; failed: string[] }> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queue.url,
      MaxNumberOfMessages: batchSize,
      MessageSystemAttributeNames: ['All'],
      WaitTimeSeconds: 0,
    }),
  );
  if (Messages.length === 0) return { records: [], failed: [] };
  const records = Messages.map((m) => toRecord(m, queue.arn));
  const event: SQSEvent = { Records: records };
  let failed: string[];
  try {
    const res = await worker.invoke<{ batchItemFailures?: { itemIdentifier: string }[] }>(event);
    failed = (res?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
  } catch {
    // A failed invocation leaves the whole batch to its visibility timeout.
    failed = records.map((r) => r.messageId);
  }
  for (const r of records.filter((r) => !failed.includes(r.messageId))) {
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: r.receiptHandle }));
  }
  return { records, failed };
}
