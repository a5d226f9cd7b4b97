import type { AppClient } from '../github/client.js';
import type { Deliveries } from '../ledger/deliveries.js';
import type { ReconcileStore } from '../ledger/reconcile-store.js';
import type { Log, MetricSink } from '../obs/types.js';
import { deliverySucceeded, type HookDelivery, nextCursor } from '../github/hook-deliveries.js';

const DAY_MS = 86_400_000;

/** GitHub keeps deliveries redeliverable for 3 days; GitHub Enterprise Server for 7. */
export function redeliveryWindowMs(apiUrl: string): number {
  return /\/api\/v3\/?$/.test(apiUrl) ? 7 * DAY_MS : 3 * DAY_MS;
}

/**
 * Where the walk through the deliveries stands. The list is newest first: a pass starts at
 * the newest delivery (`passTop`) and walks back until the window's edge or the newest
 * delivery of the previous pass (`doneTop`); `next` resumes a pass a sweep's page budget cut.
 */
export type { HookDelivery };

/** Where the delivery scan resumes: the next page, and the newest delivery of the pass and of the last whole pass. */
export interface DeliveryCursor {
  readonly next?: string;
  readonly passTop?: number;
  readonly doneTop?: number;
}

/** What the redelivery scan needs: the App's client, the ledger's cursor and seen deliveries, the clock. */
export interface DeliveryContext {
  readonly app: AppClient;
  readonly store: ReconcileStore;
  readonly deliveries: Pick<Deliveries, 'isSeen'>;
  readonly log: Log;
  readonly metrics: MetricSink;
  readonly now: () => number;
  readonly windowMs: number;
  readonly maxPages: number;
  readonly perPage: number;
}

/** What one delivery scan did: pages read, deliveries examined, redelivered and failed. */
export interface DeliveryCounts {
  pages: number;
  deliveriesExamined: number;
  redelivered: number;
  redeliveryErrors: number;
}

const CURSOR = 'deliveries';
/** GitHub's own reading: status 0 is a timeout, 4xx and 5xx are failures. */
const succeeded = deliverySucceeded;

export { nextCursor };

type Redelivery = 'redelivered' | 'skipped' | 'retry_later';

async function redeliverOnce(d: HookDelivery, ctx: DeliveryContext): Promise<Redelivery> {
  // Accepted by the intake at some point (the failure was an earlier attempt): nothing was lost.
  if (await ctx.deliveries.isSeen(d.guid)) return 'skipped';
  if (!(await ctx.store.claimRedelivery(d.guid, d.id))) return 'skipped';
  const line = { delivery: d.guid, delivery_id: d.id, status_code: d.status_code, delivered_at: d.delivered_at };
  try {
    await ctx.app.request('POST /app/hook/deliveries/{delivery_id}/attempts', { delivery_id: d.id });
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 422) {
      await ctx.store.noteRedelivery(d.guid, 'refused: too old');
      ctx.log.warn('missed delivery is too old to redeliver', line);
      return 'skipped';
    }
    await ctx.store.releaseRedelivery(d.guid);
    ctx.log.warn('redelivery failed; a later sweep asks again', { ...line, error: (err as Error).message });
    ctx.metrics.count('RedeliveryFailed');
    return 'retry_later';
  }
  ctx.log.warn('missed delivery redelivered', line);
  ctx.metrics.count('Redelivered');
  return 'redelivered';
}

/**
 * Redelivers, once, each `workflow_run` `completed` delivery that failed (status ≥ 400, or 0
 * for a timeout) and has no successful attempt, within GitHub's redelivery window. GitHub never
 * redelivers by itself. Bounded by `maxPages` per sweep; the cursor lives in DynamoDB.
 */
export async function sweepDeliveries(ctx: DeliveryContext): Promise<DeliveryCounts> {
  const counts: DeliveryCounts = { pages: 0, deliveriesExamined: 0, redelivered: 0, redeliveryErrors: 0 };
  const state = (await ctx.store.cursor<DeliveryCursor>(CURSOR)) ?? {};
  const oldest = ctx.now() - ctx.windowMs;
  let cursor = state.next;
  let passTop = cursor === undefined ? undefined : state.passTop;
  // Newest first, so a guid's later success is usually read before its failure.
  const succeededGuids = new Set<string>();

  for (let page = 0; page < ctx.maxPages; page++) {
    const res = await ctx.app.request('GET /app/hook/deliveries', {
      per_page: ctx.perPage,
      ...(cursor !== undefined && { cursor }),
    });
    counts.pages++;
    const listed = res.data as unknown as HookDelivery[];
    passTop ??= listed[0]?.id;
    const following = nextCursor(res.headers.link);
    let ended = following === undefined;
    const inScope = listed.filter((d) => {
      const fresh = (state.doneTop === undefined || d.id > state.doneTop) && Date.parse(d.delivered_at) >= oldest;
      if (!fresh) ended = true;
      return fresh;
    });
    counts.deliveriesExamined += inScope.length;
    for (const d of inScope) if (succeeded(d)) succeededGuids.add(d.guid);

    const failed = new Map<string, HookDelivery>();
    for (const d of inScope) {
      if (succeeded(d) || d.event !== 'workflow_run' || d.action !== 'completed') continue;
      if (!succeededGuids.has(d.guid) && !failed.has(d.guid)) failed.set(d.guid, d);
    }
    for (const d of failed.values()) {
      const outcome = await redeliverOnce(d, ctx);
      if (outcome === 'redelivered') counts.redelivered++;
      if (outcome === 'retry_later') {
        counts.redeliveryErrors++;
        // Read this page again next time.
        await ctx.store.saveCursor(CURSOR, { next: cursor, passTop, doneTop: state.doneTop });
        return counts;
      }
    }
    if (ended) {
      await ctx.store.saveCursor(CURSOR, { doneTop: passTop ?? state.doneTop });
      return counts;
    }
    cursor = following;
  }
  await ctx.store.saveCursor(CURSOR, { next: cursor, passTop, doneTop: state.doneTop });
  return counts;
}
