/**
 * The local stand-in for Lambda's SQS event source mapping: receives batches,
 * invokes the handler, deletes what succeeded and leaves the rest to the
 * visibility timeout, following Lambda's rules for `batchItemFailures`. It reads
 * the queue through the contract (receive, delete), as the mapping reads SQS.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { QueueRefusedError } from '../queue-refused.js';
import type { ConsumingQueue } from '../run-queue.js';
import { MAX_RECEIVE_BATCH } from '../sqs-limits.js';
import { checkIntegerInRange } from './input.js';

/** A worker as Lambda invokes it with a batch of SQS records, answering the records that failed. */
export type SqsBatchHandler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

/** What the poller reads of a queue: the contract's receive and delete, and for `drain` what it still holds. */
export interface PolledQueue extends ConsumingQueue {
  /** Names the queue in the poller's errors. */
  readonly name: string;
  /** Messages visible or in flight (dead letters excluded). */
  size(): number;
  /** Shown when a drain times out. */
  stats(): unknown;
}

/** How the poller receives, like the event source mapping's settings. */
export interface QueuePollerOptions {
  /** Records per invocation; 10 is the event source default and the FIFO maximum. */
  batchSize?: number;
  /** Pause after an empty receive, in real milliseconds. */
  idleDelayMs?: number;
  /** Parallel receive loops, like the mapping's concurrent pollers. */
  concurrency?: number;
  /** Handler failures, rejected responses and late deletes; defaults to console.error. */
  onError?: (err: unknown) => void;
}

const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

/** Receive loops handing batches to a handler, started and stopped with the local runtime. */
export class QueuePoller {
  private readonly batchSize: number;
  private readonly idleDelayMs: number;
  private readonly concurrency: number;
  private readonly onError: (err: unknown) => void;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly batches = new Set<Promise<number>>();
  private readonly sleepers = new Set<() => void>();

  constructor(
    private readonly queue: PolledQueue,
    private readonly handler: SqsBatchHandler,
    opts: QueuePollerOptions = {},
  ) {
    this.batchSize = opts.batchSize ?? MAX_RECEIVE_BATCH;
    this.idleDelayMs = opts.idleDelayMs ?? 20;
    this.concurrency = opts.concurrency ?? 1;
    checkIntegerInRange('batchSize', this.batchSize, 1, MAX_RECEIVE_BATCH);
    checkIntegerInRange('idleDelayMs', this.idleDelayMs, 0, 60_000);
    checkIntegerInRange('concurrency', this.concurrency, 1, 1000);
    this.onError = opts.onError ?? ((err) => console.error(`[queue ${queue.name}]`, err));
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (let i = 0; i < this.concurrency; i++) this.loops.push(this.loop());
  }

  /** Stops receiving and waits for the batches already handed to the handler. */
  async stop(): Promise<void> {
    this.running = false;
    for (const wake of this.sleepers) wake();
    await Promise.all(this.loops);
    this.loops = [];
    await Promise.allSettled([...this.batches]);
  }

  /**
   * Resolves once the queue holds nothing visible or in flight (dead letters
   * don't count). When the poller is not started, it polls by itself
   * meanwhile, one batch at a time.
   */
  drain(timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (err?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err === undefined) resolve();
        else reject(err);
      };
      const timer = setTimeout(() => {
        const stats = JSON.stringify(this.queue.stats());
        finish(new Error(`queue ${this.queue.name} did not drain within ${timeoutMs} ms: ${stats}`));
      }, timeoutMs);
      const watch = async (): Promise<void> => {
        while (!settled) {
          if (this.queue.size() === 0) return finish();
          if (!this.running && (await this.pollOnce()) > 0) continue;
          await delay(Math.max(this.idleDelayMs, 1));
        }
      };
      watch().catch((err: unknown) => finish(err ?? new Error('drain failed')));
    });
  }

  /** One receive and one handler invocation; resolves to the number of records handed over. */
  pollOnce(): Promise<number> {
    const batch = this.handleBatch();
    this.batches.add(batch);
    const forget = (): void => void this.batches.delete(batch);
    batch.then(forget, forget);
    return batch;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let handled = 0;
      try {
        handled = await this.pollOnce();
      } catch (err) {
        this.onError(err);
      }
      if (handled === 0 && this.running) await this.sleep(this.idleDelayMs);
    }
  }

  private async handleBatch(): Promise<number> {
    // A receive the journal cannot take answers nothing and comes back shortly (embedded/queue.ts).
    const records = await this.queue.receive(this.batchSize);
    if (records.length === 0) return 0;
    // Kept aside so a handler that mutates the event cannot redirect the deletes.
    const receipts = records.map((r) => ({ messageId: r.messageId, receiptHandle: r.receiptHandle }));
    let response: unknown;
    try {
      response = await this.handler({ Records: records });
    } catch (err) {
      this.onError(err);
      return records.length;
    }
    const failed = failedIds(response, new Set(receipts.map((r) => r.messageId)));
    if (failed instanceof Error) {
      this.onError(failed);
      return records.length;
    }
    for (const receipt of receipts) if (!failed.has(receipt.messageId)) this.deleteHandled(receipt);
    return records.length;
  }

  /**
   * Deletes a handled record without waiting for the disk, as the mapping does not wait for the
   * next batch; a journal fault is the journal's to report, a stale handle is reported here.
   */
  private deleteHandled(receipt: { messageId: string; receiptHandle: string }): void {
    this.queue.delete(receipt).catch((err: unknown) => {
      if (!(err instanceof QueueRefusedError)) return;
      this.onError(
        new Error(
          `receipt handle of ${receipt.messageId} expired before the delete; the message will be delivered again`,
        ),
      );
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}

/**
 * Lambda's reading of a partial batch response: nothing, or an empty or null
 * list, is full success; a malformed response or an identifier that names no
 * record of the batch fails the whole batch.
 */
function failedIds(response: unknown, batchIds: ReadonlySet<string>): Set<string> | Error {
  if (response === undefined || response === null) return new Set();
  if (typeof response !== 'object') return new Error(`invalid batch response: ${JSON.stringify(response)}`);
  const list = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (list === undefined || list === null) return new Set();
  if (!Array.isArray(list)) return new Error('invalid batch response: batchItemFailures is not a list');
  const failed = new Set<string>();
  for (const item of list) {
    const id = (item as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !batchIds.has(id)) {
      return new Error(`invalid batch response: itemIdentifier ${JSON.stringify(id)} is not a message of this batch`);
    }
    failed.add(id);
  }
  return failed;
}
