import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { githubAppClient, githubClients } from '../lib/compose/github.js';
import { composeWorker } from '../lib/compose/worker.js';
import { workerSettings } from '../lib/config/env.js';
import { PLATFORM_ENV, resourcesFromEnv } from '../lib/config/function-env.js';
import { obsSettings } from '../lib/config/function-settings.js';
import { parseAppSecret, rebuiltOnRotation } from '../lib/config/secrets.js';
import { EventBridgeEvents } from '../lib/events/eventbridge.js';
import { openLedger } from '../lib/ledger/ledger.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import { sqsDeferringQueue } from '../lib/queue/open-sqs.js';
import { credentialsHold } from '../lib/worker/credentials-hold.js';

const env = resourcesFromEnv(process.env, 'worker');
const settings = workerSettings(process.env);
const obs = obsSettings(process.env);
const log = createLog('reprise-worker', obs.logLevel);
const metrics = createMetrics(obs.metricsNamespace, 'reprise-worker');
// One ledger, so one document client, for the function's life.
const ledger = openLedger(new DynamoDBClient({}), env.table);
const sqs = new SQSClient({});
const events = new EventBridgeEvents(new EventBridgeClient({}), settings.events.busName);
const owner = `lambda-${process.env[PLATFORM_ENV.logStream] ?? process.pid}`;

// The worker's deferral is the queue's visibility change; a refusal rejects as a QueueRefusedError.
const queue = sqsDeferringQueue(sqs, env.workQueue);
const defer = (record: SQSRecord, seconds: number): Promise<void> => queue.changeVisibility(record, seconds);

/**
 * The App's key comes from Secrets Manager, never from the environment. Read with a five-minute
 * cache, so a rotated key reaches a warm worker within that time; the handler and its clients
 * are built again only when the secret changed. After a read that failed, the next one skips the
 * cache, so a fixed secret is used at once.
 */
const worker = rebuiltOnRotation(
  async (fresh) =>
    (await getSecret<string>(env.githubAppSecret, { maxAge: 300, ...(fresh && { forceFetch: true }) })) ?? '',
  (secret) => {
    const credentials = parseAppSecret(secret, 'GitHub App secret');
    const appClient = githubAppClient(settings, credentials, log);
    return composeWorker(settings, {
      ledger,
      client: githubClients(settings, credentials, log, { rateLimitMetrics: metrics }),
      ...(appClient && { appClient }),
      log,
      metrics,
      owner,
      events,
      defer,
    });
  },
);

/** A missing or malformed App secret holds the batch in the queue, alarmed, instead of failing it. */
const held = credentialsHold({
  log,
  metrics,
  defer,
  secretId: env.githubAppSecret,
  maxWaitSeconds: settings.pace.maxWaitMs / 1000,
  maxReceiveCount: settings.maxReceiveCount,
});

/** The context's time left bounds the batch: records it cannot decide in time go back untouched. */
export const handler = async (event: SQSEvent, context: Context) => {
  try {
    let decide: Awaited<ReturnType<typeof worker>>;
    try {
      decide = await worker();
    } catch (err) {
      return await held.hold(event, err);
    }
    held.recovered();
    return await decide(event, context);
  } finally {
    metrics.flush();
  }
};
