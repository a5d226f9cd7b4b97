import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { runtimeSettings } from '../lib/config/env.js';
import { EventBridgeEvents } from '../lib/events/eventbridge.js';
import { parseAppSecret, requireEnv } from '../lib/config/secrets.js';
import { createClientFactory } from '../lib/github/client.js';
import { Ledger } from '../lib/ledger/ledger.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import { workerDeps } from '../lib/worker/assemble.js';
import { createWorkerHandler } from '../lib/worker/handler.js';

const env = requireEnv(process.env, ['TABLE_NAME', 'GITHUB_APP_SECRET_ARN']);
const settings = runtimeSettings(process.env);
const log = createLog('reprise-worker', process.env.POWERTOOLS_LOG_LEVEL);
const metrics = createMetrics(process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Reprise', 'reprise-worker');
const dynamo = new DynamoDBClient({});
const sqs = new SQSClient({});
const ledger = new Ledger(dynamo, env.TABLE_NAME);
const owner = `lambda-${process.env.AWS_LAMBDA_LOG_STREAM_NAME ?? process.pid}`;

let worker: Promise<(event: SQSEvent) => ReturnType<ReturnType<typeof createWorkerHandler>>> | undefined;

/** Built on first use: the App's key comes from Secrets Manager, never from the environment. */
async function build() {
  const secret = await getSecret<string>(env.GITHUB_APP_SECRET_ARN, { maxAge: 900 });
  const credentials = parseAppSecret(secret ?? '', 'GitHub App secret');
  return createWorkerHandler({
    ...workerDeps(settings, {
      dynamo,
      table: env.TABLE_NAME,
      ledger,
      client: createClientFactory({
        apiUrl: settings.apiUrl,
        credentials,
        log,
        onRateLimitRemaining: (remaining) => metrics.count('RateLimitRemaining', remaining),
      }),
      log,
      metrics,
      owner,
      leaseMs: 5 * 60_000,
      events: new EventBridgeEvents(new EventBridgeClient({}), settings.events.busName),
    }),
    maxReceiveCount: settings.maxReceiveCount,
    defer: async (record, seconds) => {
      const queueUrl = queueUrlOf(record.eventSourceARN);
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: seconds,
        }),
      );
    },
  });
}

/** arn:aws:sqs:REGION:ACCOUNT:NAME → https://sqs.REGION.amazonaws.com/ACCOUNT/NAME */
export function queueUrlOf(arn: string): string {
  const [, , , region, account, name] = arn.split(':');
  return `https://sqs.${region}.amazonaws.com/${account}/${name}`;
}

export const handler = async (event: SQSEvent) => {
  worker ??= build().catch((err: unknown) => {
    worker = undefined;
    throw err;
  });
  try {
    return await (
      await worker
    )(event);
  } finally {
    metrics.flush();
  }
};
