import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { composeSignalIntake } from '../lib/compose/signals.js';
import { resourcesFromEnv } from '../lib/config/function-env.js';
import { obsSettings } from '../lib/config/function-settings.js';
import { parseSignalSecretValue, signalIntakeSettings } from '../lib/config/signal-settings.js';
import type { HttpEvent } from '../lib/http/lambda-http.js';
import { openLedger } from '../lib/ledger/ledger.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import { sqsRunQueue } from '../lib/queue/open-sqs.js';

// Parsed once per cold start: a bad setting fails the init, not every request.
const env = resourcesFromEnv(process.env, 'signalIntake');
const { ttlSeconds, toleranceMs, scope } = signalIntakeSettings(process.env);
const obs = obsSettings(process.env);
const log = createLog('reprise-signal-intake', obs.logLevel);
const metrics = createMetrics(obs.metricsNamespace, 'reprise-signal-intake');

const intake = composeSignalIntake(
  { ttlSeconds, toleranceMs },
  {
    ledger: openLedger(new DynamoDBClient({}), env.table),
    // Cached for five minutes: a rotation reaches every warm function within that time. A secret
    // that cannot be read or parsed is answered 503 by the intake, with the reason logged.
    secrets: async () =>
      parseSignalSecretValue(
        (await getSecret<string>(env.signalSecret, { maxAge: 300 })) ?? '',
        'signal secret',
        scope,
      ),
    queue: sqsRunQueue(new SQSClient({}), env.workQueue),
    log,
    metrics,
  },
);

/** `POST /signals` behind the HTTP API (or a function URL). */
export const handler = async (event: HttpEvent): Promise<APIGatewayProxyResultV2> => {
  try {
    return await intake(event);
  } finally {
    // Dimensioned metrics are published as they are counted; an empty flush would only log a warning.
    if (metrics.metrics.hasStoredMetrics()) metrics.flush();
  }
};
