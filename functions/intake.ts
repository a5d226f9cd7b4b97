import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { breakerSettings, eventSettings } from '../lib/config/function-settings.js';
import { EventBridgeEvents } from '../lib/events/eventbridge.js';
import { DynamoQueuedJobs } from '../lib/ledger/queued-jobs.js';
import { parseRotatingSecret, requireEnv } from '../lib/config/secrets.js';
import { type HttpEvent, httpLambda } from '../lib/http/lambda-http.js';
import { Ledger } from '../lib/ledger/ledger.js';
import { DynamoRerunOutcomes } from '../lib/ledger/outcomes.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import { runnerNamePatternsFrom } from '../lib/config/signal-settings.js';
import { JobRunnerStore } from '../lib/signals/job-runners.js';
import { RunnerKeys } from '../lib/signals/runner-keys.js';
import { createIntake } from '../lib/intake/webhook-intake.js';
import { sqsRunQueue } from '../lib/webhook/sqs-run-queue.js';

// Parsed once per cold start; a missing variable fails the first invocation loudly.
const env = requireEnv(process.env, ['TABLE_NAME', 'QUEUE_URL', 'WEBHOOK_SECRET_ARN']);
const log = createLog('reprise-intake', process.env.POWERTOOLS_LOG_LEVEL);
const metrics = createMetrics(process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Reprise', 'reprise-intake');
const sqs = new SQSClient({});
const dynamo = new DynamoDBClient({});

const intake = httpLambda(
  createIntake({
    // Cached for five minutes: a rotation reaches every warm function within that time.
    secrets: async () =>
      parseRotatingSecret((await getSecret<string>(env.WEBHOOK_SECRET_ARN, { maxAge: 300 })) ?? '', 'webhook secret'),
    deliveries: new Ledger(dynamo, env.TABLE_NAME),
    jobs: new JobRunnerStore(dynamo, env.TABLE_NAME, undefined, new RunnerKeys(runnerNamePatternsFrom(process.env))),
    queuedJobs: new DynamoQueuedJobs(dynamo, env.TABLE_NAME),
    events: new EventBridgeEvents(new EventBridgeClient({}), eventSettings(process.env).busName),
    outcomes: new DynamoRerunOutcomes(dynamo, env.TABLE_NAME, breakerSettings(process.env)),
    queue: sqsRunQueue(sqs, env.QUEUE_URL),
    log,
    metrics,
  }),
);

export const handler = async (event: HttpEvent) => {
  try {
    return await intake(event);
  } finally {
    metrics.flush();
  }
};
