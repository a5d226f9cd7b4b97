import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { githubAppClient, githubClients } from '../lib/compose/github.js';
import { composeReconciler } from '../lib/compose/reconciler.js';
import { reconcilerSettings } from '../lib/config/env.js';
import { resourcesFromEnv } from '../lib/config/function-env.js';
import { obsSettings } from '../lib/config/function-settings.js';
import { appSecretFix, parseAppSecret, rebuiltOnRotation } from '../lib/config/secrets.js';
import { EventBridgeEvents } from '../lib/events/eventbridge.js';
import { openLedger } from '../lib/ledger/ledger.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import type { Reconciler } from '../lib/reconcile/reconciler.js';
import { sqsRunQueue } from '../lib/queue/open-sqs.js';

const env = resourcesFromEnv(process.env, 'reconciler');
const settings = reconcilerSettings(process.env);
const obs = obsSettings(process.env);
const log = createLog('reprise-reconciler', obs.logLevel);
const metrics = createMetrics(obs.metricsNamespace, 'reprise-reconciler');
const queue = sqsRunQueue(new SQSClient({}), env.workQueue);
// One ledger, so one document client, for the function's life.
const ledger = openLedger(new DynamoDBClient({}), env.table);
const events = new EventBridgeEvents(new EventBridgeClient({}), settings.events.busName);

/**
 * The App's key comes from Secrets Manager, never from the environment. Read with a five-minute
 * cache, as the worker reads it, so a rotated key reaches a warm reconciler within that time;
 * after a failed read the next one skips the cache.
 */
const reconciler = rebuiltOnRotation(
  async (fresh) =>
    (await getSecret<string>(env.githubAppSecret, { maxAge: 300, ...(fresh && { forceFetch: true }) })) ?? '',
  (secret) => {
    const credentials = parseAppSecret(secret, 'GitHub App secret');
    return composeReconciler(settings, {
      ledger,
      queue,
      client: githubClients(settings, credentials, log),
      appClient: githubAppClient(settings, credentials, log),
      events,
      log,
      metrics,
    });
  },
);

let secretFaulty = false;

/**
 * Invoked by the schedule. A sweep never throws. A missing or malformed App secret skips the
 * sweep, counted (AppSecretInvalid, alarmed) and logged with its fix; the next tick tries again.
 */
export const handler = async () => {
  try {
    let sweeper: Reconciler;
    try {
      sweeper = await reconciler();
    } catch (err) {
      metrics.count('AppSecretInvalid');
      if (!secretFaulty) {
        log.error('GitHub App secret cannot be used: sweeps are skipped until it is fixed', {
          secret: env.githubAppSecret,
          reason: (err as Error).message,
          fix: appSecretFix(env.githubAppSecret),
        });
      }
      secretFaulty = true;
      return { skipped: 'the GitHub App secret cannot be used' };
    }
    if (secretFaulty) log.info('GitHub App secret is usable again', { secret: env.githubAppSecret });
    secretFaulty = false;
    return await sweeper.sweep();
  } finally {
    metrics.flush();
  }
};
