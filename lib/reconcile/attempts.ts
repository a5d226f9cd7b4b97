import { createHash } from 'node:crypto';
import { decisionEvent, outcomeEvent, publishQuietly } from '../events/build.js';
import type { EventPublisher } from '../events/types.js';
import type { GitHubClients } from '../github/client.js';
import { RepoApi } from '../github/repo-api.js';
import { STATE, type StoredAttempt } from '../ledger/attributes.js';
import type { AttemptReader } from '../ledger/run-attempts.js';
import type { FollowUp } from '../records.js';
import type { ReconcileStore } from '../ledger/reconcile-store.js';
import type { RerunOutcomeLog } from '../ledger/outcomes.js';
import type { RunFacts, RunMessage } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { RunQueue } from '../queue/run-queue.js';
import { messageGroupId, parseRunMessage } from '../webhook/run-message.js';

/** What the reconciler's attempt repairs need: the ledger, GitHub's runs and the queue. */
export interface AttemptContext {
  readonly store: ReconcileStore;
  readonly attempts: AttemptReader;
  readonly client: (installationId: number | null) => GitHubClients;
  readonly graphqlUrl: string;
  readonly queue: RunQueue;
  readonly outcomes?: Pick<RerunOutcomeLog, 'recordIfRerun'>;
  readonly events?: EventPublisher;
  readonly log: Log;
  readonly metrics: MetricSink;
  readonly now: () => number;
  /** A re-run attempt still open after this long is no longer followed up. */
  readonly followUpMaxAgeMs: number;
}

/** What became of an expired claim: its decision recorded, released for the queue, abandoned or skipped. */
export type OrphanOutcome = 'recorded' | 'released' | 'abandoned' | 'skipped';
/** What became of a re-run followed up: its completion enqueued, settled, still waiting or skipped. */
export type FollowUpOutcome = 'enqueued' | 'settled' | 'waiting' | 'skipped';

/** SQS caps deduplication ids at 128 characters; longer ones are hashed. */
export function deduplicationId(...parts: (string | number)[]): string {
  const id = parts.join(':');
  return id.length <= 128 ? id : createHash('sha256').update(id).digest('hex');
}

const where = (m: RunMessage) => ({
  repository: `${m.repository.owner}/${m.repository.name}`,
  run_id: m.runId,
  run_attempt: m.runAttempt,
});

/** The run as GitHub shows it now, through the installation's client. */
export async function readRun(msg: RunMessage, ctx: Pick<AttemptContext, 'client' | 'graphqlUrl'>): Promise<RunFacts> {
  const api = new RepoApi(ctx.client(msg.installationId), msg.repository.owner, msg.repository.name, ctx.graphqlUrl);
  return api.getRun(msg.runId);
}

/** The message the claim was made for; undefined (and an error logged) when it does not parse. */
export function storedMessage(rec: StoredAttempt, ctx: Pick<AttemptContext, 'log'>): RunMessage | undefined {
  try {
    return parseRunMessage(rec.message);
  } catch (err) {
    ctx.log.error('run attempt record holds no valid message; left alone', {
      pk: rec.pk,
      sk: rec.sk,
      error: (err as Error).message,
    });
    return undefined;
  }
}

/**
 * A claim whose lease ended without a decision: its worker died (or, for an attempt waiting
 * for its re-run slot, its message was lost). If the run moved past the
 * claimed attempt, the re-run call went through and `retried` is recorded; otherwise the
 * claim is released and its message enqueued again, so the attempt is decided afresh. Each
 * write is conditional on the same owner and lease, so a late worker or a parallel sweep
 * cannot be overruled, and each attempt is released at most once, ever, unless its worker saw
 * its re-run call fail (then up to CALL_FAILED_RELEASES times).
 */
export async function settleOrphan(scanned: StoredAttempt, ctx: AttemptContext): Promise<OrphanOutcome> {
  const msg = storedMessage(scanned, ctx);
  if (!msg) return 'skipped';
  // A scan reads eventually consistent data: act only on a consistent read of the same claim.
  const rec = (await ctx.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)) as StoredAttempt | undefined;
  if (!rec || rec.state !== scanned.state || rec.owner !== scanned.owner || rec.leaseUntil >= ctx.now())
    return 'skipped';
  const run = await readRun(msg, ctx);
  const line: Record<string, unknown> = {
    ...where(msg),
    owner: rec.owner,
    lease_until: new Date(rec.leaseUntil).toISOString(),
  };
  // A waiting attempt made no re-run call: its lease outlived its wait for a slot because its message
  // never came back, so it is released and enqueued again whatever the run shows.
  const waiting = rec.state === STATE.waiting;
  if (waiting) line.state = rec.state;

  if (!waiting && run.runAttempt > rec.runAttempt) {
    const reason = `reconciled: the claim's worker stopped after its re-run call; the run is at attempt ${run.runAttempt}`;
    const recorded = await recordRetriedOrphan(rec, msg, run.runAttempt, ctx, line, {
      reason,
      details: { reconciled: true },
      message: 'orphaned claim recorded as retried',
    });
    return recorded ? 'recorded' : 'skipped';
  }

  if (!(await ctx.store.markReclaim(rec, msg.repository.id))) {
    // Decided, so it is no longer swept, and `reprise decisions` shows it with its reason.
    const reason =
      rec.callError === undefined
        ? 'abandoned: its worker stopped while deciding it after it had been released once; decide it by hand (reprise replay)'
        : `abandoned: its re-run call failed again (${rec.callError}) and GitHub shows no new attempt; decide it by hand (reprise replay)`;
    const recorded = await recordAbandonedOrphan(rec, msg, ctx, line, {
      reason,
      details: { reconciled: true },
      message: 'orphaned claim recorded abandoned: this attempt was released before and its worker stopped again',
    });
    return recorded ? 'abandoned' : 'skipped';
  }
  if (!(await ctx.store.releaseOrphan(rec))) return 'skipped';
  try {
    // One id per released claim: an attempt released again (its calls failed) is enqueued again.
    await ctx.queue.send(msg, messageGroupId(msg), deduplicationId(msg.deliveryId, 'reclaim', rec.claimedAt));
  } catch (err) {
    // Without its message the released attempt would never be decided: put the claim back.
    const restored = await ctx.store.restoreClaim(rec).catch(() => false);
    if (!restored) {
      ctx.log.error('released attempt could not be enqueued nor its claim restored; decide it by hand', {
        ...line,
        message: rec.message,
        error: (err as Error).message,
      });
      ctx.metrics.count('RecoveryFailed');
    }
    throw err;
  }
  ctx.log.warn('orphaned claim released; the attempt will be decided again', line);
  ctx.metrics.count('OrphanReleased');
  return 'released';
}

/** A green re-run whose completion never reached the intake recovered all the same. */
async function recordRecovered(msg: RunMessage, attempt: number, ctx: AttemptContext): Promise<void> {
  if (!ctx.outcomes) return;
  const repository = `${msg.repository.owner}/${msg.repository.name}`;
  const ref = { installationId: msg.installationId, repoId: msg.repository.id, repository, runId: msg.runId };
  if ((await ctx.outcomes.recordIfRerun({ ...ref, runAttempt: attempt }, 'recovered')) === 'recorded') {
    ctx.metrics.count('RerunOutcome', 1, { name: 'outcome', value: 'recovered' });
    await publishQuietly(ctx.events, outcomeEvent({ ...ref, runAttempt: attempt }, 'recovered', ctx.now()), ctx.log, {
      repository,
      run_id: msg.runId,
      run_attempt: attempt,
    });
  }
}

/**
 * A run attempt reprise re-ran, past the grace period. Whether GitHub sends a completion for
 * the new attempt is unconfirmed, so the new attempt is read: completed red without a ledger
 * record, it is enqueued like a delivery (the worker's claim keeps a late delivery harmless).
 */
export async function followUpRerun(scanned: StoredAttempt, ctx: AttemptContext): Promise<FollowUpOutcome> {
  const msg = storedMessage(scanned, ctx);
  if (!msg) return 'skipped';
  const next = scanned.runAttempt + 1;
  const settle = async (followUp: FollowUp, detail: string): Promise<FollowUpOutcome> =>
    (await ctx.store.markFollowUp(scanned, followUp, detail)) ? 'settled' : 'skipped';

  if (await ctx.attempts.get(msg.repository.id, msg.runId, next))
    return settle('delivered', `attempt ${next} recorded`);
  if ((scanned.decidedAt ?? 0) < ctx.now() - ctx.followUpMaxAgeMs) {
    ctx.log.warn('re-run attempt never completed within the follow-up period', { ...where(msg), next_attempt: next });
    return settle('expired', `attempt ${next} still open`);
  }
  const run = await readRun(msg, ctx);
  if (run.runAttempt > next) return settle('superseded', `run is at attempt ${run.runAttempt}`);
  if (run.runAttempt < next || run.status !== 'completed') return 'waiting';
  if (run.conclusion !== 'failure' && run.conclusion !== 'cancelled') {
    if (run.conclusion === 'success') await recordRecovered(msg, next, ctx);
    return settle('completed', `attempt ${next} concluded ${run.conclusion ?? 'without a conclusion'}`);
  }

  const deliveryId = deduplicationId('reconcile', msg.repository.id, msg.runId, next);
  const message: RunMessage = {
    ...msg,
    deliveryId,
    runAttempt: next,
    conclusion: run.conclusion,
    headSha: run.headSha,
    headBranch: run.headBranch,
    createdAt: run.createdAt,
  };
  await ctx.queue.send(message, messageGroupId(message), deliveryId);
  await ctx.store.markFollowUp(scanned, 'enqueued', `attempt ${next} concluded ${run.conclusion}`);
  ctx.log.warn('lost completion: a re-run attempt completed red without a delivery; enqueued', where(message));
  ctx.metrics.count('LostCompletion');
  return 'enqueued';
}

/**
 * Records `retried` for a claim whose worker stopped after its re-run call went through (the run
 * moved to `runAttemptNow`), and publishes the decision its worker never did. False when the
 * claim changed meanwhile.
 */
export async function recordRetriedOrphan(
  rec: StoredAttempt,
  msg: RunMessage,
  runAttemptNow: number,
  ctx: Pick<AttemptContext, 'store' | 'events' | 'log' | 'metrics' | 'now'>,
  line: Record<string, unknown>,
  o: { readonly reason: string; readonly details: object; readonly message: string },
): Promise<boolean> {
  const details = { ...o.details, runAttemptSeen: runAttemptNow };
  if (!(await ctx.store.recordOrphan(rec, 'retried', o.reason, details))) return false;
  ctx.log.warn(o.message, { ...line, run_attempt_now: runAttemptNow });
  ctx.metrics.count('OrphanRecorded');
  await publishQuietly(
    ctx.events,
    decisionEvent(msg, { decision: 'retried', reason: o.reason, verdicts: [] }, ctx.now()),
    ctx.log,
    line,
  );
  return true;
}

/**
 * An orphan released before and found claimed again: deciding it may be what stops its worker
 * (or GitHub keeps failing its call), so it is finalised `abandoned`, counted and published,
 * never decided again on its own.
 */
export async function recordAbandonedOrphan(
  rec: StoredAttempt,
  msg: RunMessage,
  ctx: Pick<AttemptContext, 'store' | 'events' | 'log' | 'metrics' | 'now'>,
  line: Record<string, unknown>,
  o: { readonly reason: string; readonly details: object; readonly message: string },
): Promise<boolean> {
  if (!(await ctx.store.recordOrphan(rec, 'abandoned', o.reason, o.details))) return false;
  ctx.log.error(o.message, line);
  ctx.metrics.count('OrphanAbandoned');
  ctx.metrics.count('Decision', 1, { name: 'decision', value: 'abandoned' });
  await publishQuietly(
    ctx.events,
    decisionEvent(msg, { decision: 'abandoned', reason: o.reason, verdicts: [] }, ctx.now()),
    ctx.log,
    line,
  );
  return true;
}
