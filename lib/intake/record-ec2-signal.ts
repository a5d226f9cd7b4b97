import type { Log, MetricSink } from '../obs/types.js';
import type { Ec2Event } from '../signals/ec2-events.js';
import { parseEc2Event } from '../signals/ec2-events.js';
import type { DescribeInstance } from '../signals/runner-identities.js';
import { describeRunnerInstance } from '../signals/runner-identities.js';
import type { RunnerJobs } from '../ledger/runner-jobs.js';
import type { JobOnRunner } from '../records.js';
import type { RunnerSignals } from '../ledger/runner-signals.js';
import type { RunnerPodLookup } from '../signals/eks-runner-pods.js';
import { type RecoveryRequests, requestRecovery } from './request-recovery.js';

/** The one write the signal paths need. */
export type SignalRecorder = Pick<RunnerSignals, 'record'>;

/** What the EC2 signal recorder writes to and reads from: the signal store, DescribeInstances, the jobs on a runner. */
export interface Ec2SignalDeps {
  readonly store: SignalRecorder;
  readonly describe: DescribeInstance;
  readonly tagKeys: readonly string[];
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Jobs known to run on a runner (from `workflow_job` events), to count what an interruption kills. */
  readonly jobs?: Pick<RunnerJobs, 'runningOn'>;
  /** The runner pods on the instance's node when it is a node of a configured EKS cluster; never throws. */
  readonly runnerPods?: RunnerPodLookup;
  /** Where a request to end each such job's run early goes (early recovery); none sent when absent. */
  readonly recovery?: RecoveryRequests;
}

/** What one EC2 event came to: the signal recorded, or why it was not. */
export interface Ec2SignalOutcome {
  /** New records written; 0 for a repeated delivery. */
  readonly recorded: number;
  readonly ignored?: string;
}

/** The `source` of a signal recorded from an EC2 event on EventBridge (EventBridge's own name for it). */
export const EC2_SIGNAL_SOURCE = 'aws.ec2';

/**
 * Records an EC2 event under every runner key of its instance. An ignored event resolves (a
 * throw would only make EventBridge retry it); a DynamoDB fault throws so it is retried and
 * lands in the dead-letter queue if it persists. Repeats write nothing: each record is a
 * conditional put keyed on the event id.
 */
export function createEc2SignalHandler(deps: Ec2SignalDeps): (event: Ec2Event) => Promise<Ec2SignalOutcome> {
  return async (event) => {
    const parsed = parseEc2Event(event);
    if ('ignored' in parsed) {
      deps.log.info('EC2 event ignored', { reason: parsed.ignored, event_id: event?.id });
      return { recorded: 0, ignored: parsed.ignored };
    }
    const s = parsed.signal;
    const instance = await describeRunnerInstance(s.instanceId, deps);
    const { placement } = instance;
    // A pod's name is its runner's name (Actions Runner Controller): one more key per pod on the node.
    const pods = deps.runnerPods
      ? await deps.runnerPods(s.instanceId, {
          ...(instance.privateDnsName && { privateDnsName: instance.privateDnsName }),
        })
      : [];
    const keys = [...new Set([...instance.keys, ...pods])];
    let recorded = 0;
    for (const runnerKey of keys) {
      const isNew = await deps.store.record({
        runnerKey,
        kind: s.kind,
        eventTime: s.eventTime,
        eventId: s.eventId,
        source: EC2_SIGNAL_SOURCE,
        instanceId: s.instanceId,
        region: s.region,
        account: s.account,
        reason: s.reason,
        ...placement,
      });
      if (isNew) {
        recorded++;
        deps.metrics.count('SignalRecorded', 1, { name: 'kind', value: s.kind });
      }
    }
    // A repeated delivery looks the jobs up again only to request their recovery (once, by its id).
    const asks = s.kind !== 'rebalance' && (recorded > 0 || deps.recovery !== undefined);
    const interrupted = asks ? await jobsOn(deps, keys) : [];
    if (recorded > 0 && interrupted.length > 0) deps.metrics.count('InterruptedJobs', interrupted.length);
    await requestRecovery(interrupted, s, deps.recovery);
    deps.log.info('EC2 signal recorded', {
      interrupted_jobs: interrupted.map((j) => ({ job_id: j.jobId, run_id: j.runId, repository: j.repository })),
      kind: s.kind,
      instance_id: s.instanceId,
      ...(placement.instanceType && { instance_type: placement.instanceType }),
      ...(placement.availabilityZone && { availability_zone: placement.availabilityZone }),
      event_id: s.eventId,
      event_time: s.eventTime,
      reason: s.reason,
      runner_keys: keys,
      recorded,
    });
    return { recorded };
  };
}

/** A failed lookup only loses a metric: the signal itself is already recorded. */
async function jobsOn(deps: Ec2SignalDeps, keys: readonly string[]): Promise<readonly JobOnRunner[]> {
  if (!deps.jobs) return [];
  try {
    return await deps.jobs.runningOn(keys);
  } catch (err) {
    deps.log.warn('could not count the jobs on the interrupted runner', { error: (err as Error).message });
    return [];
  }
}
