import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { composeEc2SignalRecorder } from '../lib/compose/signals.js';
import { resourcesFromEnv } from '../lib/config/function-env.js';
import { obsSettings } from '../lib/config/function-settings.js';
import { signalSettings } from '../lib/config/signal-settings.js';
import type { Ec2SignalOutcome } from '../lib/intake/record-ec2-signal.js';
import { openLedger } from '../lib/ledger/ledger.js';
import { createLog, createMetrics } from '../lib/obs/powertools.js';
import { sqsRunQueue } from '../lib/queue/open-sqs.js';
import { ec2Describe } from '../lib/signals/ec2-describe.js';
import type { EksAccessPorts } from '../lib/signals/eks-access.js';
import type { Ec2Event } from '../lib/signals/ec2-events.js';

// Parsed once per cold start: a bad setting fails the init, not every event.
const env = resourcesFromEnv(process.env, 'ec2Signal');
const settings = signalSettings(process.env);
const obs = obsSettings(process.env);
const log = createLog('reprise-ec2-signal', obs.logLevel);
const metrics = createMetrics(obs.metricsNamespace, 'reprise-ec2-signal');

// The EKS client is loaded only when clusters are configured: every other stack's cold start stays as it was.
const eks = settings.eksClusters.length > 0 ? await eksPorts() : undefined;

const record = composeEc2SignalRecorder(settings, {
  ledger: openLedger(new DynamoDBClient({}), env.table),
  describe: ec2Describe(new EC2Client({})),
  ...(eks && { eks }),
  queue: sqsRunQueue(new SQSClient({}), env.workQueue),
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

/** DescribeCluster and the role's token, over one EKS client. */
async function eksPorts(): Promise<EksAccessPorts> {
  const [{ EKSClient }, { eksDescribeCluster, eksRoleToken }, { readFile }] = await Promise.all([
    import('@aws-sdk/client-eks'),
    import('../lib/signals/eks-describe.js'),
    import('node:fs/promises'),
  ]);
  const client = new EKSClient({});
  return {
    describeCluster: eksDescribeCluster(client),
    roleToken: eksRoleToken(client),
    readFile: (path) => readFile(path, 'utf8'),
  };
}
