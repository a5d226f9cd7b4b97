/**
 * From a signal to early recovery: every job known to run on the runner it names (from
 * `workflow_job` `in_progress`) gets a recovery request on the work queue, and the worker proves
 * and acts. The signal paths never call GitHub themselves: the worker is the one writer of
 * cancels and re-runs. A request is sent whether or not the record was new, so a retried event
 * whose first enqueue failed still reaches the worker; the deduplication id keeps it once.
 */
import type { JobOnRunner } from '../records.js';
import type { RecoveryMessage, SignalKind } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { RunQueue } from '../queue/run-queue.js';
import { recoveryDeduplicationId, recoveryGroupId } from '../webhook/recovery-message.js';

/** Kinds that may end a run early once proven; a rebalance recommendation is only a risk. */
const REQUESTING_KINDS: ReadonlySet<SignalKind> = new Set(['spot-interruption', 'terminated', 'external']);

/** What a request is sent on: the work queue. */
export interface RecoveryRequests {
  readonly queue: RunQueue;
  readonly log: Log;
  readonly metrics: MetricSink;
}

/** The request for one job on a lost runner; undefined for a record that predates the ids it needs. */
export function recoveryRequestFor(job: JobOnRunner): RecoveryMessage | undefined {
  const [owner, name] = job.repository.split('/');
  if (job.repositoryId === undefined || job.installationId === undefined || !owner || !name) return undefined;
  return {
    v: 1,
    kind: 'recovery',
    installationId: job.installationId,
    repository: { id: job.repositoryId, owner, name },
    runId: job.runId,
    jobId: job.jobId,
    runnerName: job.runnerName,
    trigger: 'signal',
  };
}

/**
 * Sends one request per job the signal's runner was running. Throws when the queue refuses, so
 * the signal's delivery is retried (and its request sent again under the same id).
 */
export async function requestRecovery(
  jobs: readonly JobOnRunner[],
  signal: { readonly kind: SignalKind; readonly eventId: string },
  to: RecoveryRequests | undefined,
): Promise<number> {
  if (!to || !REQUESTING_KINDS.has(signal.kind)) return 0;
  let sent = 0;
  for (const job of jobs) {
    const request = recoveryRequestFor(job);
    if (!request) continue;
    await to.queue.send(
      request,
      recoveryGroupId(request),
      recoveryDeduplicationId(request, `signal:${signal.eventId}`),
    );
    sent++;
  }
  if (sent > 0) {
    to.metrics.count('RecoveryRequested', sent);
    to.log.info('early recovery requested', { jobs: jobs.map((j) => j.jobId), event_id: signal.eventId, sent });
  }
  return sent;
}
