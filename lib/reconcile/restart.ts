/**
 * The restart sweep of a runtime that is one process on its data: at boot, every claim an
 * earlier process held is dead with certainty, so it is settled at once instead of after its
 * lease. A claim whose re-run call went through is recorded `retried`; any other is released
 * and decided again from its message, however often a process died deciding it: a death is
 * one more receive of that message, which the queue counts, and only a message received
 * MAX_RECEIVE_COUNT times goes to the dead-letter queue (and its attempt is recorded
 * `abandoned` then, lib/local/dead-letter-verdict.ts). A deploy that restarts twice, an OOM of
 * the whole process or a host reboot kills every message in flight alike; none of them is a
 * verdict. A waiting attempt keeps its place: its message is on the queue's disk and comes back
 * at its slot.
 */
import { STATE, type StoredAttempt } from '../ledger/attributes.js';
import { messageGroupId } from '../webhook/run-message.js';
import { type AttemptContext, deduplicationId, readRun, recordRetriedOrphan, storedMessage } from './attempts.js';
import type { RunMessage } from '../model.js';

/** What the restart sweep needs: the attempt repairs' context, this process's owner, and the queue's contents. */
export interface RestartContext extends Omit<AttemptContext, 'followUpMaxAgeMs' | 'outcomes'> {
  /** This process's owner: its own claims (none yet at boot) are never touched. */
  readonly owner: string;
  /** True when the queue already holds a message for this attempt. */
  readonly queued: (msg: RunMessage) => boolean;
}

/** What became of one attempt left by an earlier process. */
export type RestartOutcome = 'recorded' | 'released' | 'kept' | 'skipped' | 'failed';

/** How many attempts had each outcome. */
export type RestartSummary = Record<RestartOutcome, number>;

const PAGE = 100;
/** After this many faults (GitHub unreachable, most likely) the rest is left to the reconciler, so a start is never held up long. */
const MAX_FAULTS = 3;

/** Settles every attempt claimed or waiting under another owner; each one's fault is logged and counted, never thrown. */
export async function sweepAfterRestart(ctx: RestartContext): Promise<RestartSummary> {
  const summary: RestartSummary = { recorded: 0, released: 0, kept: 0, skipped: 0, failed: 0 };
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ctx.store.scanHeld(start, PAGE);
    for (const rec of page.items) {
      if (rec.owner === ctx.owner) continue;
      if (summary.failed >= MAX_FAULTS) {
        summary.failed++;
        continue;
      }
      const outcome = await settleAfterRestart(rec, ctx).catch((err: Error) => {
        // The claim stays; the reconciler settles it once its lease ends.
        ctx.log.warn('claim of an earlier process not settled at restart; left to the reconciler', {
          pk: rec.pk,
          sk: rec.sk,
          owner: rec.owner,
          error: err.message,
        });
        return 'failed' as const;
      });
      summary[outcome]++;
    }
    start = page.next;
  } while (start);
  return summary;
}

/**
 * Settles one attempt an earlier process claimed or left waiting: recorded as retried when GitHub
 * is past it, released and queued again otherwise, kept (and queued if missing) when it was waiting.
 */
export async function settleAfterRestart(scanned: StoredAttempt, ctx: RestartContext): Promise<RestartOutcome> {
  const msg = storedMessage(scanned, ctx);
  if (!msg) return 'skipped';
  const rec = (await ctx.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)) as StoredAttempt | undefined;
  if (!rec || rec.state !== scanned.state || rec.owner !== scanned.owner || rec.owner === ctx.owner) return 'skipped';
  const line = {
    repository: `${msg.repository.owner}/${msg.repository.name}`,
    run_id: msg.runId,
    run_attempt: msg.runAttempt,
    owner: rec.owner,
    state: rec.state,
  };

  if (rec.state === STATE.waiting) {
    if (!ctx.queued(msg)) await enqueue(msg, rec, ctx);
    return 'kept';
  }

  const run = await readRun(msg, ctx);
  if (run.runAttempt > rec.runAttempt) {
    const reason = `settled at restart: the process that claimed it stopped after its re-run call; the run is at attempt ${run.runAttempt}`;
    const recorded = await recordRetriedOrphan(rec, msg, run.runAttempt, ctx, line, {
      reason,
      details: { restart: true },
      message: 'claim of an earlier process recorded as retried',
    });
    return recorded ? 'recorded' : 'skipped';
  }

  // The process that held the claim is dead with certainty: released every time, never
  // abandoned here. The queue counts the death as a receive of the message.
  if (!(await ctx.store.releaseOrphan(rec))) return 'skipped';
  if (!ctx.queued(msg)) await enqueue(msg, rec, ctx);
  ctx.log.warn('claim of an earlier process released; the attempt will be decided again', line);
  ctx.metrics.count('OrphanReleased');
  return 'released';
}

/** Enqueues the attempt's message; without it the claim is put back, for the reconciler. */
async function enqueue(msg: RunMessage, rec: StoredAttempt, ctx: RestartContext): Promise<void> {
  try {
    await ctx.queue.send(msg, messageGroupId(msg), deduplicationId(msg.deliveryId, 'restart', rec.owner));
  } catch (err) {
    if (rec.state === STATE.claimed) await ctx.store.restoreClaim(rec).catch(() => false);
    throw err;
  }
}
