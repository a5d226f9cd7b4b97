import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DECISION_NEED_MS } from '../config/github-settings.js';
import type { RunMessage } from '../model.js';
import type { WorkerContext } from './context.js';
import { handleRecord, receiveCount, type RecordParts } from './record-handler.js';
import type { RunOutcome } from './result.js';

/** How the handler talks back to the queue it reads from: hiding a record, and the redrive limit. */
export interface QueueOptions {
  /**
   * Hides a failed message for `seconds` (SQS ChangeMessageVisibility): a rate limit's wait, or
   * the exponential backoff of a transient fault.
   */
  readonly defer?: (record: SQSRecord, seconds: number) => Promise<void>;
  /** The queue's redrive limit, to say in the log when a message is about to be dead-lettered. */
  readonly maxReceiveCount?: number;
}

/** The invocation's time budget: how much time a batch keeps for each further record. */
export interface TimeBudgetOptions {
  /** What one decision needs: with less time left, a batch takes no new message. DECISION_NEED_MS when absent. */
  readonly decisionNeedMs?: number;
}

/** Who hears each decided run beside the log and the events (the local runtime's waiters, tests). */
export interface OutcomeOptions {
  /** Called once per run message decided (a duplicate included), never for one that waits. */
  readonly onOutcome?: (message: RunMessage, outcome: RunOutcome) => void;
}

/** The worker's context and the handler's options, grouped by what they configure. */
export interface WorkerHandlerDeps extends WorkerContext, QueueOptions, TimeBudgetOptions, OutcomeOptions {}

/** The invocation's time left (Lambda's context); without one, a batch is never cut short. */
export interface InvocationTime {
  /** Milliseconds before the invocation times out. */
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

/** The parts every record shares: the context, the queue's verbs, the redrive limit. */
function recordParts(deps: WorkerHandlerDeps): RecordParts {
  const { log, metrics } = deps.obs;
  return {
    deps,
    isLastReceive: (received) => deps.maxReceiveCount !== undefined && received >= deps.maxReceiveCount,
    // A refusal is logged and counted, never silent.
    hide: async (record, seconds, where) => {
      await deps.defer?.(record, seconds).catch((e: Error) => {
        log.error('visibility change refused', { ...where, seconds, error: e.message });
        metrics.count('DeferRefused');
      });
    },
  };
}

/** Which records a batch started, and whether it stopped for want of time. */
interface BatchClock {
  readonly started: Set<string>;
  /** Marks the record started, or throws HandedBack when too little time is left; the first is always taken. */
  take(record: SQSRecord): void;
  /** The time left when the batch stopped taking records, or undefined when it never did. */
  cutShortAt(): number | undefined;
}

function batchClock(time: InvocationTime | undefined, needMs: number): BatchClock {
  const started = new Set<string>();
  let leftMs: number | undefined;
  return {
    started,
    take(record) {
      // The first record is always taken: a later invocation would have no more time for it.
      if (time && started.size > 0) {
        leftMs = time.getRemainingTimeInMillis();
        if (leftMs < needMs) throw new HandedBack();
      }
      started.add(record.messageId);
    },
    cutShortAt: () => (leftMs !== undefined && leftMs < needMs ? leftMs : undefined),
  };
}

/**
 * Each message group through Powertools' FIFO processor, groups side by side: FIFO order binds
 * only within a run's group, so one installation's in-process waits for a pace slot never hold
 * another's runs that share the batch. Answers the records that failed.
 */
async function processGroups(
  records: readonly SQSRecord[],
  handle: (record: SQSRecord) => Promise<void>,
): Promise<SQSBatchResponse['batchItemFailures']> {
  const results = await Promise.all(
    fifoGroups(records).map((Records) =>
      processPartialResponse({ Records }, handle, new SqsFifoPartialProcessorAsync(), {
        skipGroupOnError: true,
        throwOnFullBatchFailure: false,
      }),
    ),
  );
  return results.flatMap((r) => r.batchItemFailures);
}

/**
 * Records the batch never started go back visible at once: never claimed, so nothing is lost or
 * doubled, and a record skipped behind a failure of its group must not stay in flight for the
 * queue's whole visibility timeout, holding the group long after the failed one is back.
 */
async function handBack(
  back: readonly SQSRecord[],
  batch: BatchClock,
  deps: WorkerHandlerDeps,
  parts: RecordParts,
): Promise<void> {
  const { log, metrics } = deps.obs;
  const leftMs = batch.cutShortAt();
  if (leftMs !== undefined) {
    log.info('batch cut short: the rest is handed back untouched', {
      decided: batch.started.size,
      handed_back: back.length,
      remaining_ms: leftMs,
      decision_need_ms: deps.decisionNeedMs ?? DECISION_NEED_MS,
    });
    metrics.count('HandedBack', back.length);
  }
  for (const r of back) {
    const received = receiveCount(r);
    if (parts.isLastReceive(received)) {
      log.error('message handed back on its last receive; it goes to the dead-letter queue', {
        message_id: r.messageId,
        receive_count: received,
      });
    }
  }
  if (deps.defer) await Promise.all(back.map((r) => deps.defer!(r, 0).catch(() => undefined)));
}

/**
 * The worker's SQS handler: one decision per message, partial batch failures reported,
 * FIFO order kept within a run's group, the batch cut short before the invocation's time runs
 * out. Permanent faults are acknowledged with a reason.
 */
export function createWorkerHandler(
  deps: WorkerHandlerDeps,
): (event: SQSEvent, time?: InvocationTime) => Promise<SQSBatchResponse> {
  const parts = recordParts(deps);
  const needMs = deps.decisionNeedMs ?? DECISION_NEED_MS;
  return async (event, time) => {
    const batch = batchClock(time, needMs);
    const waiting = new Set<string>();
    const failures = await processGroups(event.Records, async (record) => {
      batch.take(record);
      await handleRecord(record, waiting, parts);
    });
    const failed = new Set(failures.map((f) => f.itemIdentifier));
    const back = event.Records.filter((r) => failed.has(r.messageId) && !batch.started.has(r.messageId));
    if (back.length > 0) await handBack(back, batch, deps, parts);
    // A run that waits stays in the queue, hidden until its time: reported as an item failure, never deleted.
    const waits = [...waiting].filter((id) => !failed.has(id)).map((id) => ({ itemIdentifier: id }));
    return { batchItemFailures: [...failures, ...waits] };
  };
}
