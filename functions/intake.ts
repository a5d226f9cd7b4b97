import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { composeIntake } from '../lib/compose/intake.js';
import { resourcesFromEnv } from '../lib/config/function-env.js';
import { intakeSettings, obsSettings } from '../lib/config/function-settings.js';
import { parseRotatingSecret } from '../lib/config/secrets.js';
import { EventBridgeEvents } from '../lib/events/eventbridge.js';
import type { HttpEvent } from '../lib/http/lambda-http.js';
import { openIntakeLedger } from '../lib/ledger/ledger.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import { sqsRunQueue } from '../lib/queue/open-sqs.js';

// Parsed once per cold start; a missing variable fails the first invocation loudly.
const env = resourcesFromEnv(process.env, 'intake');
const settings = intakeSettings(process.env);
const obs = obsSettings(process.env);
const log = createLog('reprise-intake', obs.logLevel);
const metrics = createMetrics(obs.metricsNamespace, 'reprise-intake');

const intake = composeIntake(settings, {
  ledger: openIntakeLedger(new DynamoDBClient({}), env.table),
  queue: sqsRunQueue(new SQSClient({}), env.workQueue),
  // Cached for five minutes: a rotation reaches every warm function within that time.
  secrets: async () =>
    parseRotatingSecret((await getSecret<string>(env.webhookSecret, { maxAge: 300 })) ?? '', 'webhook secret'),
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
