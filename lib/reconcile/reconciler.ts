import type { ReconcileSettings } from '../config/env.js';
import type { GitHubClients } from '../github/client.js';
import { STATE } from '../ledger/attributes.js';
import type { Ledger } from '../ledger/ledger.js';
import type { ReconcileStore } from '../ledger/reconcile-store.js';
import type { RerunOutcomeLog } from '../ledger/outcomes.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { RunQueue } from '../queue/run-queue.js';
import type { AppClient } from '../github/client.js';
import { type AttemptContext, followUpRerun, settleOrphan } from './attempts.js';
import { redeliveryWindowMs, sweepDeliveries } from './deliveries.js';
import type { RepoConfig } from '../config/repo-config.js';
import { RepoConfigSource } from '../github/repo-config-source.js';
import type { QueuedJobs } from '../ledger/queued-jobs.js';
import type { Pacing } from '../ledger/pacing.js';
import type { EventPublisher } from '../events/types.js';
import { sweepStuck } from './stuck.js';

/** How much one sweep may do, so it ends within its function's timeout. */
export interface ReconcileLimits {
  /** Items read per ledger scan page. */
  readonly ledgerPageSize: number;
  /** Ledger scan pages per sweep; the scan resumes from a cursor stored in the table. */
  readonly ledgerPages: number;
  /** Pages of `GET /app/hook/deliveries` per sweep. */
  readonly deliveryPages: number;
  readonly deliveriesPerPage: number;
  /** How long after a re-run its next attempt may stay silent before it is polled. */
  readonly completionGraceMs: number;
  /** After this long a re-run attempt that never completed is no longer polled. */
  readonly followUpMaxAgeMs: number;
}

/** The deployed sweep's limits. */
export const DEFAULT_LIMITS: ReconcileLimits = {
  ledgerPageSize: 500,
  ledgerPages: 4,
  deliveryPages: 5,
  deliveriesPerPage: 100,
  completionGraceMs: 30 * 60_000,
  followUpMaxAgeMs: 3 * 86_400_000,
};

/** The ledger's stores the reconciler reads and writes. */
export type ReconcileLedger = Pick<Ledger, 'attempts' | 'deliveries' | 'reconcile'>;

/** What the reconciler needs: the ledger, GitHub's clients, the queue, the clock and its limits. */
export interface ReconcilerDeps {
  readonly ledger: ReconcileLedger;
  /** Installation clients, to read runs. */
  readonly client: (installationId: number | null) => GitHubClients;
  readonly graphqlUrl: string;
  /** REST base; decides GitHub's redelivery window (3 days, 7 on GHES). */
  readonly apiUrl: string;
  /** An App (JWT) client for the webhook deliveries; without one (token mode) they are not swept. */
  readonly appClient?: AppClient;
  /** Where released and recovered run attempts are enqueued: the worker's queue. */
  readonly queue: RunQueue;
  /** Records a re-run that completed green without a delivery as `recovered`. */
  readonly outcomes?: Pick<RerunOutcomeLog, 'recordIfRerun'>;
  /** Jobs waiting for a runner, and the defaults (`stuck_after`) the repositories' files apply over; no stuck sweep without. */
  readonly stuck?: {
    readonly queuedJobs: QueuedJobs;
    readonly defaults: RepoConfig;
    /** The installations' shared pace, which a stuck report's check run keeps. */
    readonly pacing?: Pacing;
  };
  /** Where re-run outcomes and stuck-queued jobs are published. */
  readonly events?: EventPublisher;
  readonly log: Log;
  readonly metrics: MetricSink;
  readonly now?: () => number;
  readonly limits?: Partial<ReconcileLimits>;
}

/** What one sweep did, for its log line and metrics. */
export interface SweepCounts {
  /** Ledger items the scan matched (expired claims and re-runs to follow up). */
  matched: number;
  orphansRecorded: number;
  orphansReleased: number;
  orphansAbandoned: number;
  completionsEnqueued: number;
  followUpsSettled: number;
  followUpsWaiting: number;
  deliveryPages: number;
  deliveriesExamined: number;
  redelivered: number;
  /** Jobs reported stuck in the queue, and queued jobs GitHub says have started or ended. */
  stuckReported: number;
  stuckCleared: number;
  /** Items or parts that failed; the next sweep takes them up again. */
  errors: number;
  failed: boolean;
}

/** The deployment's reconcile settings as sweep limits. */
export function limitsFrom(settings: ReconcileSettings): Partial<ReconcileLimits> {
  return {
    ledgerPages: settings.pagesPerSweep,
    deliveryPages: settings.pagesPerSweep,
    completionGraceMs: settings.completionGraceSeconds * 1000,
  };
}

const emptyCounts = (): SweepCounts => ({
  matched: 0,
  orphansRecorded: 0,
  orphansReleased: 0,
  orphansAbandoned: 0,
  completionsEnqueued: 0,
  followUpsSettled: 0,
  followUpsWaiting: 0,
  deliveryPages: 0,
  deliveriesExamined: 0,
  redelivered: 0,
  stuckReported: 0,
  stuckCleared: 0,
  errors: 0,
  failed: false,
});

const LEDGER_CURSOR = 'ledger';

/**
 * The safety net under the worker: orphaned claims, missed deliveries and lost completions.
 * A sweep is bounded (pages per sweep, cursors in DynamoDB), idempotent (conditional writes)
 * and never throws: a failure is logged and counted (`SweepFailed`), and the next sweep
 * carries on from the stored cursors.
 */
export class Reconciler {
  private readonly store: ReconcileStore;
  private readonly now: () => number;
  private readonly limits: ReconcileLimits;
  private readonly attempts: AttemptContext;

  constructor(private readonly deps: ReconcilerDeps) {
    this.now = deps.now ?? Date.now;
    this.limits = { ...DEFAULT_LIMITS, ...deps.limits };
    this.store = deps.ledger.reconcile(this.now);
    this.attempts = {
      store: this.store,
      attempts: deps.ledger.attempts,
      client: deps.client,
      graphqlUrl: deps.graphqlUrl,
      queue: deps.queue,
      ...(deps.outcomes && { outcomes: deps.outcomes }),
      ...(deps.events && { events: deps.events }),
      log: deps.log,
      metrics: deps.metrics,
      now: this.now,
      followUpMaxAgeMs: this.limits.followUpMaxAgeMs,
    };
  }

  async sweep(): Promise<SweepCounts> {
    const counts = emptyCounts();
    const failures: string[] = [];
    const part = async (name: string, run: () => Promise<void>): Promise<void> => {
      try {
        await run();
      } catch (err) {
        counts.errors++;
        failures.push(`${name}: ${(err as Error).message}`);
      }
    };
    await part('ledger', () => this.sweepLedger(counts));
    if (this.deps.appClient) await part('deliveries', () => this.sweepDeliveries(this.deps.appClient!, counts));
    if (this.deps.stuck) await part('stuck', () => this.sweepStuck(this.deps.stuck!, counts));
    counts.failed = counts.errors > 0;
    try {
      if (counts.failed) {
        this.deps.metrics.count('SweepFailed');
        this.deps.log.error('reconcile sweep failed; the next sweep carries on', { ...counts, failures });
      } else {
        this.deps.log.info('reconcile sweep', { ...counts });
      }
    } catch {
      // A logging fault must not turn into a thrown sweep.
    }
    return counts;
  }

  /**
   * Claims and re-runs are found by a bounded Scan with a filter, resumed from a stored cursor.
   * The table is small (TTLs of days) and a sweep every few minutes reads a few pages, while a
   * sparse "open claims" marker would need a second write beside every claim, one that can be
   * lost between the two writes, which is exactly the failure this sweep exists to catch.
   */
  private async sweepLedger(counts: SweepCounts): Promise<void> {
    const saved = await this.store.cursor<{ start?: Record<string, unknown> }>(LEDGER_CURSOR);
    let start = saved?.start;
    for (let page = 0; page < this.limits.ledgerPages; page++) {
      const { items, next } = await this.store.scanAttempts(
        start,
        this.limits.ledgerPageSize,
        this.now() - this.limits.completionGraceMs,
      );
      counts.matched += items.length;
      for (const item of items) {
        try {
          if (item.state !== STATE.decided) {
            const outcome = await settleOrphan(item, this.attempts);
            if (outcome === 'recorded') counts.orphansRecorded++;
            if (outcome === 'released') counts.orphansReleased++;
            if (outcome === 'abandoned') counts.orphansAbandoned++;
          } else {
            const outcome = await followUpRerun(item, this.attempts);
            if (outcome === 'enqueued') counts.completionsEnqueued++;
            if (outcome === 'settled') counts.followUpsSettled++;
            if (outcome === 'waiting') counts.followUpsWaiting++;
          }
        } catch (err) {
          // The item still matches the scan's filter, so a later pass takes it up again.
          counts.errors++;
          this.deps.log.warn('reconcile: item left for the next sweep', {
            pk: item.pk,
            sk: item.sk,
            state: item.state,
            error: (err as Error).message,
          });
        }
      }
      start = next;
      if (!start) break;
    }
    await this.store.saveCursor(LEDGER_CURSOR, start ? { start } : {});
  }

  private async sweepStuck(stuck: NonNullable<ReconcilerDeps['stuck']>, counts: SweepCounts): Promise<void> {
    const c = { stuckReported: 0, stuckCleared: 0, stuckErrors: 0 };
    await sweepStuck(
      {
        queuedJobs: stuck.queuedJobs,
        attempts: this.deps.ledger.attempts,
        client: this.deps.client,
        graphqlUrl: this.deps.graphqlUrl,
        configSource: this.configSource,
        defaults: stuck.defaults,
        ...(this.deps.events && { events: this.deps.events }),
        ...(stuck.pacing && { pacing: stuck.pacing }),
        log: this.deps.log,
        metrics: this.deps.metrics,
        now: this.now,
      },
      c,
    );
    counts.stuckReported += c.stuckReported;
    counts.stuckCleared += c.stuckCleared;
    counts.errors += c.stuckErrors;
  }

  private readonly configSource = new RepoConfigSource();

  private async sweepDeliveries(app: AppClient, counts: SweepCounts): Promise<void> {
    const d = await sweepDeliveries({
      app,
      store: this.store,
      deliveries: this.deps.ledger.deliveries,
      log: this.deps.log,
      metrics: this.deps.metrics,
      now: this.now,
      windowMs: redeliveryWindowMs(this.deps.apiUrl),
      maxPages: this.limits.deliveryPages,
      perPage: this.limits.deliveriesPerPage,
    });
    counts.deliveryPages += d.pages;
    counts.deliveriesExamined += d.deliveriesExamined;
    counts.redelivered += d.redelivered;
    counts.errors += d.redeliveryErrors;
  }
}
