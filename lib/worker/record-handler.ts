/**
 * One record of the worker's batch: a run message decided (or deferred while it waits), a
 * recovery request proved, and a fault answered by what it is: a permanent one acknowledged with
 * its reason, a transient one backed off inside SQS's visibility window and failed.
 */
import type { SQSRecord } from 'aws-lambda';
import { PermanentError, RateLimitedError, ShapeError } from '../errors.js';
import { isRecoveryMessage, type RecoveryMessage, type RunMessage } from '../model.js';
import { parseQueueMessage } from '../webhook/run-message.js';
import type { WorkerContext } from './context.js';
import { recoveryLine, runRecovery } from './recovery.js';
import { type Deferred, duplicateOutcome, type RunOutcome } from './result.js';
import { runDecision } from './run-decision.js';
import { expireWaitPastVisibility } from './wait-past-visibility.js';
import { firstReceiveMs, fitBackoff, planWait, type VisibilityPlan } from './visibility.js';

/** What handling a record needs: the worker's context, how to hide a record, the redrive limit. */
export interface RecordParts {
  readonly deps: WorkerContext & {
    readonly onOutcome?: (message: RunMessage, outcome: RunOutcome) => void;
  };
  /** Whether this receive is the last before the queue's redrive moves the message to its dead letters. */
  readonly isLastReceive: (received: number) => boolean;
  /** Hides the record for `seconds`; a refusal is logged and counted, never silent. */
  readonly hide: (record: SQSRecord, seconds: number, where: Record<string, unknown>) => Promise<void>;
}

/** Fields of the log line that name a record. */
type Where = Record<string, unknown>;

/** Exponential backoff of a transient fault: 10 s after the first receive, doubling, at most 15 minutes. */
export const transientBackoffSeconds = (receiveCount: number): number =>
  Math.min(900, 5 * 2 ** Math.max(1, receiveCount));

/** Why a message can never succeed, or undefined when a retry may help. */
export function permanentFault(err: unknown): string | undefined {
  if (err instanceof ShapeError) return `malformed message: ${err.message}`;
  if (err instanceof PermanentError) return err.message;
  return undefined;
}

/** The record's receive count, as SQS says it (1 when absent). */
export const receiveCount = (record: SQSRecord): number => Number(record.attributes.ApproximateReceiveCount ?? '1');

/** A wait until `untilMs` planned inside the record's visibility window, in whole seconds (at least one). */
function planUntil(record: SQSRecord, untilMs: number, now: number): VisibilityPlan {
  return planWait(Math.max(1, Math.ceil((untilMs - now) / 1000)), firstReceiveMs(record, now), now);
}

/**
 * Handles one record: a run message is decided, a recovery request proved. A record that stays
 * in the queue hidden until its time (a run or a request that waits) is added to `waiting`; a
 * transient fault throws, failing the record; a permanent one is acknowledged.
 */
export async function handleRecord(record: SQSRecord, waiting: Set<string>, parts: RecordParts): Promise<void> {
  const received = receiveCount(record);
  let message: RunMessage | undefined;
  try {
    const parsed = parseQueueMessage(record.body);
    if (isRecoveryMessage(parsed)) return await deferRecovery(record, parsed, waiting, received, parts);
    message = parsed;
    await decideRun(record, message, waiting, received, parts);
  } catch (err) {
    await answerFault(record, message, err, received, parts);
  }
}

/** A run message decided: its outcome heard, or (a run that waits) its record hidden until its time. */
async function decideRun(
  record: SQSRecord,
  message: RunMessage,
  waiting: Set<string>,
  received: number,
  parts: RecordParts,
): Promise<void> {
  const result = await runDecision(message, parts.deps);
  if (result.kind === 'deferred') {
    const where = { message_id: record.messageId, run_id: message.runId, run_attempt: message.runAttempt };
    if (await deferWaitingRun(record, message, result, where, received, parts)) waiting.add(record.messageId);
    return;
  }
  parts.deps.onOutcome?.(message, result.kind === 'decided' ? result.outcome : duplicateOutcome(result));
}

/**
 * A run that waits: its message goes back hidden until its time, and is no failure of the
 * batch. The wait is planned inside SQS's 12 hours from the first receive; one that cannot fit
 * is decided `expired` (or left to the message that holds the attempt). Answers whether the
 * record stays in the queue.
 */
async function deferWaitingRun(
  record: SQSRecord,
  message: RunMessage,
  wait: Deferred,
  where: Where,
  received: number,
  parts: RecordParts,
): Promise<boolean> {
  const { deps } = parts;
  const { log, metrics } = deps.obs;
  const plan = planUntil(record, wait.untilMs, deps.clock());
  if (plan.kind === 'cannot_fit') {
    await expireWaitPastVisibility(message, `${wait.reason}; ${plan.reason}`, deps);
    return false;
  }
  const line = { ...where, reason: wait.reason, wait_seconds: plan.seconds, receive_count: received };
  // The redrive counts every receive: after this one the message goes to the dead-letter queue,
  // and the waiting attempt is taken back by the reconciler once its lease past the pace slot ends.
  if (parts.isLastReceive(received))
    log.error('run waits on its last receive; its message goes to the dead-letter queue', line);
  else log.info('run waits', line);
  metrics.count(wait.metric);
  await parts.hide(record, plan.seconds, where);
  return true;
}

/** A recovery request: decided now, or hidden until its proof (a spot warning's two minutes). */
async function deferRecovery(
  record: SQSRecord,
  request: RecoveryMessage,
  waiting: Set<string>,
  received: number,
  parts: RecordParts,
): Promise<void> {
  const { deps } = parts;
  const result = await runRecovery(request, deps);
  if (result.kind !== 'deferred') return;
  const plan = planUntil(record, result.untilMs, deps.clock());
  const where = { message_id: record.messageId, ...recoveryLine(request), receive_count: received };
  if (plan.kind === 'cannot_fit') {
    deps.obs.log.warn('early recovery request dropped: its wait cannot fit the queue', {
      ...where,
      reason: plan.reason,
    });
    return;
  }
  deps.obs.metrics.count(result.metric);
  await parts.hide(record, plan.seconds, where);
  waiting.add(record.messageId);
}

/**
 * A fault of the record: a permanent one is acknowledged with its reason (counted as poison); any
 * other is logged, hidden for its backoff (a rate limit's wait, else exponential), and rethrown to
 * fail the record. The last receive is not hidden: the redrive moves it to the dead-letter queue.
 */
async function answerFault(
  record: SQSRecord,
  message: RunMessage | undefined,
  err: unknown,
  received: number,
  parts: RecordParts,
): Promise<void> {
  const { log, metrics } = parts.deps.obs;
  const permanent = permanentFault(err);
  const where = { message_id: record.messageId, run_id: message?.runId, run_attempt: message?.runAttempt };
  if (permanent) {
    log.error('message dropped: permanent fault', { ...where, reason: permanent });
    metrics.count('PoisonMessage');
    return;
  }
  const wait = err instanceof RateLimitedError ? err.delaySeconds : undefined;
  const final = parts.isLastReceive(received);
  const now = parts.deps.clock();
  const retryIn = final
    ? undefined
    : fitBackoff(wait ?? transientBackoffSeconds(received), firstReceiveMs(record, now), now);
  log[final ? 'error' : 'warn'](
    final ? 'message failed; it goes to the dead-letter queue' : 'message failed; it will be retried',
    {
      ...where,
      reason: (err as Error).message,
      receive_count: received,
      ...(wait !== undefined && { retry_after_seconds: wait }),
      ...(retryIn !== undefined && { retry_in_seconds: retryIn }),
    },
  );
  metrics.count(err instanceof RateLimitedError ? 'RateLimited' : 'TransientFault');
  if (retryIn !== undefined) await parts.hide(record, retryIn, where);
  throw err;
}
