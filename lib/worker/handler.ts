import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DECISION_NEED_MS } from '../config/github-settings.js';
import { PermanentError, RateLimitedError, ShapeError, WaitError } from '../errors.js';
import type { RunMessage } from '../model.js';
import { parseRunMessage } from '../webhook/run-message.js';
import type { RunOutcome, WorkerDeps } from './decide-run.js';
import { decideRun } from './decide-run.js';
import { expireUnfitWait } from './unfit-wait.js';
import { firstReceiveMs, fitBackoff, planWait } from './visibility.js';

export interface WorkerHandlerDeps extends WorkerDeps {
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
  const needMs = deps.decisionNeedMs ?? DECISION_NEED_MS;
  const recordHandler = async (record: SQSRecord): Promise<void> => {
    const received = Number(record.attributes.ApproximateReceiveCount ?? '1');
    let message: RunMessage | undefined;
    try {
      message = parseRunMessage(record.body);
      const outcome = await decideRun(message, deps);
      deps.onOutcome?.(message, outcome);
    } catch (err) {
      const permanent = permanentFault(err);
      const where = { message_id: record.messageId, run_id: message?.runId, run_attempt: message?.runAttempt };
      if (permanent) {
        deps.log.error('message dropped: permanent fault', { ...where, reason: permanent });
        deps.metrics.count('PoisonMessage');
        return;
      }
      // Every deferral is planned inside SQS's 12 hours from the first receive, never refused.
      const now = (deps.now ?? Date.now)();
      const firstReceive = firstReceiveMs(record, now);
      const defer = async (seconds: number) => {
        await deps.defer?.(record, seconds).catch((e: Error) => {
          deps.log.error('visibility change refused', { ...where, seconds, error: e.message });
          deps.metrics.count('DeferRefused');
        });
      };
      if (err instanceof WaitError && !(deps.maxReceiveCount !== undefined && received >= deps.maxReceiveCount)) {
        // Not a fault: the run waits (for its re-run turn, or out a pause) and its message comes back then.
        const plan = planWait(err.delaySeconds, firstReceive, now);
        if (plan.kind === 'cannot_fit') {
          // Decided expired here, or left to the message that holds the attempt: either way this one is done.
          await expireUnfitWait(message!, `${err.message}; ${plan.reason}`, deps);
          return;
        }
        const seconds = plan.seconds;
        deps.log.info('run waits', { ...where, reason: err.message, wait_seconds: seconds, receive_count: received });
        if (err.metric) deps.metrics.count(err.metric);
        await defer(seconds);
        throw err;
      }
      const wait = err instanceof RateLimitedError || err instanceof WaitError ? err.delaySeconds : undefined;
      const reason = (err as Error).message;
      const last = deps.maxReceiveCount !== undefined && received >= deps.maxReceiveCount;
      // The last receive is not deferred: the redrive policy moves it to the DLQ at its next receive.
      const retryIn = last ? undefined : fitBackoff(wait ?? transientBackoffSeconds(received), firstReceive, now);
      deps.log[last ? 'error' : 'warn'](
        last ? 'message failed; it goes to the dead-letter queue' : 'message failed; it will be retried',
        {
          ...where,
          reason,
          receive_count: received,
          ...(wait !== undefined && { retry_after_seconds: wait }),
          ...(retryIn !== undefined && { retry_in_seconds: retryIn }),
        },
      );
      deps.metrics.count(
        err instanceof RateLimitedError
          ? 'RateLimited'
          : err instanceof WaitError
            ? (err.metric ?? 'RerunWaiting')
            : 'TransientFault',
      );
      if (retryIn !== undefined) await defer(retryIn);
      throw err;
    }
  };
  return async (event, time) => {
    const processor = new SqsFifoPartialProcessorAsync();
    const started = new Set<string>();
    let leftMs: number | undefined;
    // The first record is always taken: a later invocation would have no more time for it.
    const timed = async (record: SQSRecord): Promise<void> => {
      if (time && started.size > 0) {
        leftMs = time.getRemainingTimeInMillis();
        if (leftMs < needMs) throw new HandedBack();
      }
      started.add(record.messageId);
      await recordHandler(record);
    };
    const res = await processPartialResponse(event, timed, processor, {
      skipGroupOnError: true,
      throwOnFullBatchFailure: false,
    });
    const failed = new Set(res.batchItemFailures.map((f) => f.itemIdentifier));
    // Never claimed, so nothing is lost or doubled; they are visible again at once for the next invocation.
    const back = event.Records.filter((r) => failed.has(r.messageId) && !started.has(r.messageId));
    if (back.length > 0 && leftMs !== undefined && leftMs < needMs) {
      deps.log.info('batch cut short: the rest is handed back untouched', {
        decided: started.size,
        handed_back: back.length,
        remaining_ms: leftMs,
        decision_need_ms: needMs,
      });
      deps.metrics.count('HandedBack', back.length);
      for (const r of back) {
        const received = Number(r.attributes.ApproximateReceiveCount ?? '1');
        if (deps.maxReceiveCount !== undefined && received >= deps.maxReceiveCount) {
          deps.log.error('message handed back on its last receive; it goes to the dead-letter queue', {
            message_id: r.messageId,
            receive_count: received,
          });
        }
      }
      if (deps.defer) await Promise.all(back.map((r) => deps.defer!(r, 0).catch(() => undefined)));
    }
    return res;
  };
}
