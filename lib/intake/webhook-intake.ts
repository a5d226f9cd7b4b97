import { verifyWithFallback } from '@octokit/webhooks-methods';
import { isUtf8 } from 'node:buffer';
import { ShapeError } from '../errors.js';
import { type HttpAnswer, type HttpRequest, MAX_BODY_BYTES } from '../http/lambda-http.js';
import type { AttemptRef } from '../records.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { RunnerJobs } from '../ledger/runner-jobs.js';
import type { JobOnRunner, ReportedBranchRun } from '../records.js';
import { RunnerKeys } from '../signals/runner-keys.js';
import { messageGroupId } from '../webhook/run-message.js';
import { readWorkflowJob } from '../webhook/workflow-job.js';
import { readWorkflowRun, type WorkflowRunDelivery } from '../webhook/workflow-run.js';
import { FIFO_ID } from '../queue/sqs-limits.js';

import type { EventPublisher } from '../events/types.js';
import type { Deliveries } from '../ledger/deliveries.js';
import type { QueuedJobs } from '../ledger/queued-jobs.js';
import type { RerunOutcomeLog } from '../ledger/outcomes.js';
import type { RunQueue } from '../queue/run-queue.js';
import { outcomeEvent, publishQuietly } from '../events/build.js';
import type { BranchRuns } from '../ledger/branch-runs.js';
import type { RunRecoveries } from '../ledger/run-recoveries.js';
import { recoveryDeduplicationId, recoveryGroupId } from '../webhook/recovery-message.js';

/** What `POST /webhook` needs: its secrets, the queue and the stores each delivery may write. */
export interface IntakeDeps {
  /** The current webhook secret first, then the previous one during a rotation. */
  readonly secrets: () => Promise<readonly string[]>;
  readonly deliveries: Deliveries;
  readonly queue: RunQueue;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Records which job runs on which runner, from `workflow_job` events (optional). */
  readonly jobs?: Pick<RunnerJobs, 'started' | 'finished'>;
  /** The keys a job's runner is recorded under, from its name (RUNNER_NAME_PATTERNS); the instance id alone when absent. */
  readonly runnerKeys?: RunnerKeys;
  /** Records jobs waiting for a runner (`queued`) and forgets them (`in_progress`, `completed`), for the stuck-queued sweep. */
  readonly queuedJobs?: Pick<QueuedJobs, 'queued' | 'clear'>;
  /** Records green completions of re-runs reprise made (`recovered`); green runs are ignored without it. */
  readonly outcomes?: Pick<RerunOutcomeLog, 'recordIfRerun'>;
  /** Where a recorded `recovered` outcome is published. */
  readonly events?: EventPublisher;
  /** Records the newest run of each workflow on each branch, from every `workflow_run` event (optional). */
  readonly branchRuns?: Pick<BranchRuns, 'record'>;
  /** Runs whose lost job waits for its healthy siblings: a sibling's end sends the request again (optional). */
  readonly recoveries?: Pick<RunRecoveries, 'waiting'>;
  readonly now?: () => number;
}

const answer = (status: number, body: Record<string, unknown>): HttpAnswer => ({ status, body });

/**
 * True when the current secret, or the previous one during a rotation, produced the signature
 * (`@octokit/webhooks-methods`, a constant-time compare). GitHub signs the UTF-8 bytes it sends;
 * the caller has already refused a body that is not UTF-8, so decoding it changes nothing.
 */
export async function signatureMatches(
  secrets: readonly string[],
  body: string,
  signature: string | undefined,
): Promise<boolean> {
  const [current, ...previous] = secrets.filter(Boolean);
  if (!current || !signature || !signature.startsWith('sha256=') || body.length === 0) return false;
  return (await verifyWithFallback(current, body, signature, previous)) === true;
}

/**
 * Records a recovered re-run straight in the ledger: no decision, no GitHub call, no queue.
 * The write is once per attempt, so a redelivery changes nothing.
 */
async function recordRecovered(deps: IntakeDeps, attempt: AttemptRef | ShapeError, guid: string): Promise<HttpAnswer> {
  if (attempt instanceof ShapeError) return answer(400, { error: `not a workflow_run payload: ${attempt.message}` });
  const result = await deps.outcomes!.recordIfRerun(attempt, 'recovered');
  if (result === 'not_a_rerun') return answer(202, { ok: true, reason: 'ignored: not a re-run by reprise' });
  if (result === 'recorded') {
    deps.metrics.count('RerunOutcome', 1, { name: 'outcome', value: 'recovered' });
    deps.log.info('re-run outcome', {
      delivery: guid,
      repository: attempt.repository,
      run_id: attempt.runId,
      run_attempt: attempt.runAttempt,
      outcome: 'recovered',
    });
    await publishQuietly(deps.events, outcomeEvent(attempt, 'recovered', (deps.now ?? Date.now)()), deps.log, {
      delivery: guid,
      run_id: attempt.runId,
    });
  }
  return answer(202, { ok: true, reason: 'outcome recorded: recovered', run_id: attempt.runId });
}

/**
 * `queued` records the job as waiting for a runner; `in_progress` and `completed` forget it, then
 * `in_progress` records the job on its runner and `completed` forgets that too; the rest is ignored.
 */
async function recordJob(deps: IntakeDeps, payload: Record<string, unknown>): Promise<HttpAnswer> {
  const action = payload.action;
  const read = readWorkflowJob(payload);
  const waiting = deps.queuedJobs;
  if (waiting && (action === 'queued' || action === 'in_progress' || action === 'completed')) {
    const q = typeof read === 'string' ? read : read.queued;
    if (typeof q === 'string') return answer(400, { error: q });
    if (action === 'queued') {
      await waiting.queued(q);
      return answer(202, { ok: true, reason: 'job recorded as queued' });
    }
    await waiting.clear(q);
  }
  const jobs = deps.jobs;
  if (!jobs || (action !== 'in_progress' && action !== 'completed'))
    return answer(202, { ok: true, reason: `ignored: action ${String(action)}` });
  const job = typeof read === 'string' ? read : read.onRunner;
  if (typeof job === 'string') {
    return job === 'no runner assigned yet'
      ? answer(202, { ok: true, reason: `ignored: ${job}` })
      : answer(400, { error: job });
  }
  const runnerKeys = (deps.runnerKeys ?? new RunnerKeys()).for(job.runnerName);
  await (action === 'in_progress' ? jobs.started(job, runnerKeys) : jobs.finished(job, runnerKeys));
  if (action === 'completed') await askAgainIfWaiting(deps, job);
  return answer(202, { ok: true, reason: action === 'in_progress' ? 'job recorded on its runner' : 'job finished' });
}

/**
 * A run whose lost job waits for its healthy siblings is asked about again when one of them ends:
 * the worker then ends the run if nothing healthy still runs. One request per job that ended.
 */
async function askAgainIfWaiting(deps: IntakeDeps, job: JobOnRunner): Promise<void> {
  if (!deps.recoveries || job.repositoryId === undefined) return;
  const waiting = await deps.recoveries.waiting(job.repositoryId, job.runId);
  if (!waiting) return;
  const request = { ...waiting, trigger: 'sibling_ended' as const };
  await deps.queue.send(request, recoveryGroupId(request), recoveryDeduplicationId(request, `ended:${job.jobId}`));
  deps.log.info('early recovery asked again: a job of the waiting run ended', {
    run_id: job.runId,
    job_id: job.jobId,
    waiting_job_id: waiting.jobId,
  });
}

/**
 * Records the run a `workflow_run` event reports as its branch's newest, whatever its action or
 * conclusion: nothing is enqueued for it. A failed write is logged and the delivery goes on: the
 * worker then lists the branch's runs instead.
 */
async function recordBranchRun(deps: IntakeDeps, found: ReportedBranchRun | string, guid: string): Promise<void> {
  if (!deps.branchRuns || typeof found === 'string') return;
  try {
    await deps.branchRuns.record(found.key, found.run);
  } catch (err) {
    deps.log.warn('could not record the branch run', {
      delivery: guid,
      run_id: found.run.runId,
      error: (err as Error).message,
    });
  }
}

/**
 * The webhook intake: verify, filter, dedupe, enqueue. No GitHub call, so it answers fast.
 * The delivery is marked seen only after the enqueue, so a failure here is never mistaken
 * for a duplicate when GitHub redelivers.
 */
export function createIntake(deps: IntakeDeps): (req: HttpRequest) => Promise<HttpAnswer> {
  return async (req) => {
    if (req.body.length > MAX_BODY_BYTES) return answer(413, { error: 'payload too large' });
    const event = req.headers['x-github-event'];
    const guid = req.headers['x-github-delivery'];
    if (!event || !guid) return answer(400, { error: 'missing X-GitHub-Event or X-GitHub-Delivery header' });
    // The GUID (a UUID) becomes the queue's deduplication id: one SQS would refuse is a 400, not a 5xx.
    if (!FIFO_ID.test(guid)) return answer(400, { error: 'X-GitHub-Delivery is not a delivery GUID' });

    // GitHub sends UTF-8 JSON; anything else is refused before it is decoded or verified.
    if (!isUtf8(req.body)) return answer(400, { error: 'body is not UTF-8' });
    const raw = req.body.toString('utf8');
    if (!(await signatureMatches(await deps.secrets(), raw, req.headers['x-hub-signature-256']))) {
      deps.metrics.count('SignatureFailure');
      deps.log.warn('webhook signature rejected', { delivery: guid, event });
      return answer(401, { error: 'signature does not match' });
    }
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      return answer(400, { error: 'body is not JSON' });
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      return answer(400, { error: 'body is not a JSON object' });
    }
    if (event === 'ping') return answer(200, { ok: true, pong: guid });
    if (event === 'workflow_job' && (deps.jobs || deps.queuedJobs)) {
      return recordJob(deps, payload as Record<string, unknown>);
    }

    if (event !== 'workflow_run') return answer(202, { ok: true, reason: `ignored: event ${event}` });
    return enqueueRun(deps, readWorkflowRun(payload as Record<string, unknown>, guid), guid);
  };
}

/**
 * A `workflow_run` delivery: its branch run recorded, a green re-run's outcome recorded, a
 * completed red run enqueued once.
 */
async function enqueueRun(deps: IntakeDeps, run: WorkflowRunDelivery, guid: string): Promise<HttpAnswer> {
  await recordBranchRun(deps, run.branchRun, guid);
  if (deps.outcomes && run.greenRerun) return recordRecovered(deps, run.attempt, guid);
  if (run.ignored) return answer(202, { ok: true, reason: run.ignored });
  const message = run.message;
  if (message instanceof ShapeError) {
    return answer(400, { error: `not a workflow_run payload: ${message.message}` });
  }
  if (await deps.deliveries.isSeen(guid)) {
    deps.log.info('duplicate delivery', { delivery: guid, run_id: message.runId });
    return answer(200, { ok: true, reason: 'duplicate' });
  }
  await deps.queue.send(message, messageGroupId(message), guid);
  try {
    await deps.deliveries.markSeen(guid, 'workflow_run');
  } catch (err) {
    // Already enqueued; the queue's and the ledger's dedupe keep a repeat harmless.
    deps.log.warn('could not record delivery as seen', { delivery: guid, error: (err as Error).message });
  }
  deps.log.info('enqueued', {
    delivery: guid,
    run_id: message.runId,
    run_attempt: message.runAttempt,
    repository: `${message.repository.owner}/${message.repository.name}`,
  });
  return answer(202, { ok: true, reason: 'enqueued', run_id: message.runId, run_attempt: message.runAttempt });
}
