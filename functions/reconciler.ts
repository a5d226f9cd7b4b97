import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { reconcilerSettings } from '../lib/config/env.js';
import { EventBridgeEvents } from '../lib/events/eventbridge.js';
import { DynamoQueuedJobs } from '../lib/ledger/queued-jobs.js';
import { DynamoPacing } from '../lib/ledger/pacing.js';
import { parseAppSecret, rebuiltOnRotation, requireEnv } from '../lib/config/secrets.js';
import { createAppClient, createClientFactory } from '../lib/github/client.js';
import { Ledger } from '../lib/ledger/ledger.js';
import { DynamoRerunOutcomes } from '../lib/ledger/outcomes.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import { limitsFrom, Reconciler } from '../lib/reconcile/reconciler.js';
import { sqsRunQueue } from '../lib/webhook/sqs-run-queue.js';

const env = requireEnv(process.env, ['TABLE_NAME', 'QUEUE_URL', 'GITHUB_APP_SECRET_ARN']);
const settings = reconcilerSettings(process.env);
const log = createLog('reprise-reconciler', process.env.POWERTOOLS_LOG_LEVEL);
const metrics = createMetrics(process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Reprise', 'reprise-reconciler');
const dynamo = new DynamoDBClient({});
const sqs = new SQSClient({});
const ledger = new Ledger(dynamo, env.TABLE_NAME);

/**
 * The App's key comes from Secrets Manager, never from the environment. Read with a five-minute
 * cache, as the worker reads it, so a rotated key reaches a warm reconciler within that time.
 */
const reconciler = rebuiltOnRotation(
  async () => (await getSecret<string>(env.GITHUB_APP_SECRET_ARN, { maxAge: 300 })) ?? '',
  (secret) => {
    const credentials = parseAppSecret(secret, 'GitHub App secret');
    return new Reconciler({
      ledger,
      client: createClientFactory({ apiUrl: settings.apiUrl, credentials, log }),
      graphqlUrl: settings.graphqlUrl,
      apiUrl: settings.apiUrl,
      ...(credentials.kind === 'app' && { appClient: createAppClient({ apiUrl: settings.apiUrl, credentials, log }) }),
      queue: sqsRunQueue(sqs, env.QUEUE_URL),
      outcomes: new DynamoRerunOutcomes(dynamo, env.TABLE_NAME, settings.breaker),
      stuck: {
        queuedJobs: new DynamoQueuedJobs(dynamo, env.TABLE_NAME),
        defaults: settings.defaults,
        pacing: new DynamoPacing(dynamo, env.TABLE_NAME, settings.pace),
      },
      events: new EventBridgeEvents(new EventBridgeClient({}), settings.events.busName),
      log,
      metrics,
      limits: limitsFrom(settings.reconcile),
    });
  },
);

/** Invoked by the schedule. A sweep never throws; only a missing secret or setting fails the invocation. */
export const handler = async () => {
  try {
    return await (await reconciler()).sweep();
  } finally {
    metrics.flush();
  }
};
