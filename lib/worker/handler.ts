import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DECISION_NEED_MS } from '../config/github-settings.js';
import { PermanentError, RateLimitedError, ShapeError } from '../errors.js';
import { isRecoveryMessage, type RecoveryMessage, type RunMessage } from '../model.js';
import { parseQueueMessage } from '../webhook/recovery-message.js';
import type { WorkerContext } from './context.js';
import { type Deferred, duplicateOutcome, type RunOutcome } from './result.js';
import { runDecision } from './run-decision.js';
import { recoveryLine, runRecovery } from './recovery.js';
import { expireUnfitWait } from './unfit-wait.js';
import { firstReceiveMs, fitBackoff, planWait } from './visibility.js';

export interface WorkerHandlerDeps extends WorkerContext {
  /**
   * Hides a failed message for `seconds` (SQS ChangeMessageVisibility): a rate limit's wait, or
   * the exponential backoff of a transient fault.
   */
  readonly defer?: (record: SQSRecord, seconds: number) => Promise<void>;
  /** The queue's redrive limit, to say in the log when a message is about to be dead-lettered. */
  readonly maxReceiveCount?: number;
  readonly onOutcome?: (message: RunMessage, outcome: RunOutcome) => void;
  /** What one decision needs: with less time left, a batch takes no new message. DECISION_NEED_MS when absent. */
  readonly decisionNeedMs?: number;
}

/** The invocation's time left (Lambda's context); without one, a batch is never cut short. */
export interface InvocationTime {
  getRemainingTimeInMillis(): number;
}

/** A record the batch did not take: too little time was left to decide it. */
class HandedBack extends Error {
  override name = 'HandedBack';
}

/** The batch's records by message group, each group in its order of receipt. */
export function fifoGroups(records: readonly SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const r of records) {
    // A record without a group (a standard queue's) is a group of its own.
    const key = r.attributes.MessageGroupId ?? `\u0000${r.messageId}`;
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()];
}

/** Exponential backoff of a transient fault: 10 s after the first receive, doubling, at most 15 minutes. */
export const transientBackoffSeconds = (receiveCount: number): number =>
  Math.min(900, 5 * 2 ** Math.max(1, receiveCount));

/** Why a message can never succeed, or undefined when a retry may help. */
export function permanentFault(err: unknown): string | undefined {
  if (err instanceof ShapeError) return `malformed message: ${err.message}`;
  if (err instanceof PermanentError) return err.message;
  return undefined;
}

/**
 * The worker's SQS handler: one decision per message, partial batch failures reported,
 * FIFO order kept within a run's group. Permanent faults are acknowledged with a reason.
 */
export function createWorkerHandler(
  deps: WorkerHandlerDeps,
): (event: SQSEvent, time?: InvocationTime) => Promise<SQSBatchResponse> {
  const { log, metrics } = deps.obs;
  const needMs = deps.decisionNeedMs ?? DECISION_NEED_MS;
  const last = (received: number): boolean => deps.maxReceiveCount !== undefined && received >= deps.maxReceiveCount;

  /** Hides the record for `seconds`; a refusal is logged and counted, never silent. */
  const deferFor = async (record: SQSRecord, seconds: number, where: Record<string, unknown>): Promise<void> => {
    await deps.defer?.(record, seconds).catch((e: Error) => {
      log.error('visibility change refused', { ...where, seconds, error: e.message });
      metrics.count('DeferRefused');
    });
  };

  /**
   * A run that waits: its message goes back hidden until its time, and is no failure of the
   * batch. The wait is planned inside SQS's 12 hours from the first receive; one that cannot fit
   * is decided `expired` (or left to the message that holds the attempt). Answers whether the
   * record stays in the queue.
   */
  const deferRecord = async (
    record: SQSRecord,
    message: RunMessage,
    wait: Deferred,
    where: Record<string, unknown>,
    received: number,
  ): Promise<boolean> => {
    const now = deps.clock();
    const plan = planWait(Math.max(1, Math.ceil((wait.untilMs - now) / 1000)), firstReceiveMs(record, now), now);
    if (plan.kind === 'cannot_fit') {
      await expireUnfitWait(message, `${wait.reason}; ${plan.reason}`, deps);
      return false;
    }
    const line = { ...where, reason: wait.reason, wait_seconds: plan.seconds, receive_count: received };
    // The redrive counts every receive: after this one the message goes to the dead-letter queue,
    // and the waiting attempt is taken back by the reconciler once its lease past the turn ends.
    if (last(received)) log.error('run waits on its last receive; its message goes to the dead-letter queue', line);
    else log.info('run waits', line);
    metrics.count(wait.metric);
    await deferFor(record, plan.seconds, where);
    return true;
  };

  /** A recovery request: decided now, or hidden until its proof (a spot warning's two minutes). */
  const recoveryRecord = async (
    record: SQSRecord,
    request: RecoveryMessage,
    deferred: Set<string>,
    received: number,
  ): Promise<void> => {
    const result = await runRecovery(request, deps);
    if (result.kind !== 'deferred') return;
    const now = deps.clock();
    const plan = planWait(Math.max(1, Math.ceil((result.untilMs - now) / 1000)), firstReceiveMs(record, now), now);
    const where = { message_id: record.messageId, ...recoveryLine(request), receive_count: received };
    if (plan.kind === 'cannot_fit') {
      log.warn('early recovery request dropped: its wait cannot fit the queue', { ...where, reason: plan.reason });
      return;
    }
    metrics.count(result.metric);
    await deferFor(record, plan.seconds, where);
    deferred.add(record.messageId);
  };

  const recordHandler = async (record: SQSRecord, deferred: Set<string>): Promise<void> => {
    const received = Number(record.attributes.ApproximateReceiveCount ?? '1');
    let message: RunMessage | undefined;
    try {
      const parsed = parseQueueMessage(record.body);
      if (isRecoveryMessage(parsed)) return await recoveryRecord(record, parsed, deferred, received);
      message = parsed;
      const result = await runDecision(message, deps);
      if (result.kind === 'deferred') {
        const where = { message_id: record.messageId, run_id: message.runId, run_attempt: message.runAttempt };
        if (await deferRecord(record, message, result, where, received)) deferred.add(record.messageId);
        return;
      }
      deps.onOutcome?.(message, result.kind === 'decided' ? result.outcome : duplicateOutcome(result));
    } catch (err) {
      const permanent = permanentFault(err);
      const where = { message_id: record.messageId, run_id: message?.runId, run_attempt: message?.runAttempt };
      if (permanent) {
        log.error('message dropped: permanent fault', { ...where, reason: permanent });
        metrics.count('PoisonMessage');
        return;
      }
      const wait = err instanceof RateLimitedError ? err.delaySeconds : undefined;
      const reason = (err as Error).message;
      const final = last(received);
      // The last receive is not deferred: the redrive policy moves it to the DLQ at its next receive.
      const now = deps.clock();
      const retryIn = final
        ? undefined
        : fitBackoff(wait ?? transientBackoffSeconds(received), firstReceiveMs(record, now), now);
      log[final ? 'error' : 'warn'](
        final ? 'message failed; it goes to the dead-letter queue' : 'message failed; it will be retried',
        {
          ...where,
          reason,
          receive_count: received,
          ...(wait !== undefined && { retry_after_seconds: wait }),
          ...(retryIn !== undefined && { retry_in_seconds: retryIn }),
        },
      );
      metrics.count(err instanceof RateLimitedError ? 'RateLimited' : 'TransientFault');
      if (retryIn !== undefined) await deferFor(record, retryIn, where);
      throw err;
    }
  };
  return async (event, time) => {
    const started = new Set<string>();
    const deferred = new Set<string>();
    let leftMs: number | undefined;
    // The first record is always taken: a later invocation would have no more time for it.
    const timed = async (record: SQSRecord): Promise<void> => {
      if (time && started.size > 0) {
        leftMs = time.getRemainingTimeInMillis();
        if (leftMs < needMs) throw new HandedBack();
      }
      started.add(record.messageId);
      await recordHandler(record, deferred);
    };
    // FIFO order binds only within a run's group: groups go side by side, so one installation's
    // in-process turn waits never hold another's runs that share the batch.
    const results = await Promise.all(
      fifoGroups(event.Records).map((Records) =>
        processPartialResponse({ Records }, timed, new SqsFifoPartialProcessorAsync(), {
          skipGroupOnError: true,
          throwOnFullBatchFailure: false,
        }),
      ),
    );
    const res = { batchItemFailures: results.flatMap((r) => r.batchItemFailures) };
    const failed = new Set(res.batchItemFailures.map((f) => f.itemIdentifier));
    // Never claimed, so nothing is lost or doubled. They are visible again at once: a record
    // skipped behind a failure of its group must not stay in flight for the queue's whole
    // visibility timeout, holding the group long after the failed one is back.
    const back = event.Records.filter((r) => failed.has(r.messageId) && !started.has(r.messageId));
    if (back.length > 0) {
      const cutShort = leftMs !== undefined && leftMs < needMs;
      if (cutShort) {
        log.info('batch cut short: the rest is handed back untouched', {
          decided: started.size,
          handed_back: back.length,
          remaining_ms: leftMs,
          decision_need_ms: needMs,
        });
        metrics.count('HandedBack', back.length);
      }
      for (const r of back) {
        const received = Number(r.attributes.ApproximateReceiveCount ?? '1');
        if (last(received)) {
          log.error('message handed back on its last receive; it goes to the dead-letter queue', {
            message_id: r.messageId,
            receive_count: received,
          });
        }
      }
      if (deps.defer) await Promise.all(back.map((r) => deps.defer!(r, 0).catch(() => undefined)));
    }
    // A run that waits stays in the queue, hidden until its turn: reported as an item failure, never deleted.
    const waits = [...deferred].filter((id) => !failed.has(id)).map((id) => ({ itemIdentifier: id }));
    return { batchItemFailures: [...res.batchItemFailures, ...waits] };
  };
}
