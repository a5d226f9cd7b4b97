import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { requireEnv } from '../lib/config/secrets.js';
import { TTL } from '../lib/ledger/keys.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import type { Ec2Event } from '../lib/signals/ec2-events.js';
import { ec2Describe } from '../lib/signals/ec2-describe.js';
import type { Ec2SignalOutcome } from '../lib/signals/record-ec2-signal.js';
import { createEc2SignalHandler } from '../lib/signals/record-ec2-signal.js';
import { SignalStore } from '../lib/signals/signal-store.js';

/**
 * SIGNAL_TTL_HOURS as lib/config/env.ts reads it. That module brings the GitHub client and the
 * YAML parser into the bundle, which this function never needs.
 */
function signalTtlSeconds(raw: string | undefined): number {
  if (raw === undefined || raw === '') return TTL.signalDefault;
  const hours = Number(raw);
  if (!Number.isInteger(hours) || hours < 1) {
    throw new Error(`SIGNAL_TTL_HOURS: expected a whole number ≥ 1, got "${raw}"`);
  }
  return hours * 3600;
}

// Parsed once per cold start: a bad setting fails the init, not every event.
const env = requireEnv(process.env, ['TABLE_NAME']);
const ttlSeconds = signalTtlSeconds(process.env.SIGNAL_TTL_HOURS);
const tagKeys = (process.env.RUNNER_TAG_KEYS ?? '')
  .split(',')
  .map((k) => k.trim())
  .filter(Boolean);
const log = createLog('reprise-ec2-signal', process.env.POWERTOOLS_LOG_LEVEL);
const metrics = createMetrics(process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Reprise', 'reprise-ec2-signal');

const record = createEc2SignalHandler({
  store: new SignalStore(new DynamoDBClient({}), env.TABLE_NAME, ttlSeconds),
  describe: ec2Describe(new EC2Client({})),
  tagKeys,
  log,
  metrics,
});

/** EventBridge target for the `aws.ec2` rules: throws only on faults, so only those are retried. */
export const handler = async (event: Ec2Event): Promise<Ec2SignalOutcome> => {
  try {
    return await record(event);
  } finally {
    // Dimensioned metrics are published as they are counted; an empty flush would only log a warning.
    if (metrics.metrics.hasStoredMetrics()) metrics.flush();
  }
};
