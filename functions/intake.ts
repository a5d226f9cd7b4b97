import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { composeIntake } from '../lib/compose/intake.js';
import { intakeSettings } from '../lib/config/function-settings.js';
import { parseRotatingSecret, requireEnv } from '../lib/config/secrets.js';
import { EventBridgeEvents } from '../lib/events/eventbridge.js';
import type { HttpEvent } from '../lib/http/lambda-http.js';
import { openLedger } from '../lib/ledger/ledger.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import { sqsRunQueue } from '../lib/webhook/sqs-run-queue.js';

// Parsed once per cold start; a missing variable fails the first invocation loudly.
const env = requireEnv(process.env, ['TABLE_NAME', 'QUEUE_URL', 'WEBHOOK_SECRET_ARN']);
const settings = intakeSettings(process.env);
const log = createLog('reprise-intake', process.env.POWERTOOLS_LOG_LEVEL);
const metrics = createMetrics(process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Reprise', 'reprise-intake');

const intake = composeIntake(settings, {
  ledger: openLedger(new DynamoDBClient({}), env.TABLE_NAME),
  queue: sqsRunQueue(new SQSClient({}), env.QUEUE_URL),
  // Cached for five minutes: a rotation reaches every warm function within that time.
  secrets: async () =>
    parseRotatingSecret((await getSecret<string>(env.WEBHOOK_SECRET_ARN, { maxAge: 300 })) ?? '', 'webhook secret'),
  events: new EventBridgeEvents(new EventBridgeClient({}), settings.events.busName),
  log,
  metrics,
});

export const handler = async (event: HttpEvent) => {
  try {
    return await intake(event);
  } finally {
    metrics.flush();
  }
};
