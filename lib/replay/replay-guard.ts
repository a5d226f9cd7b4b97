import { STATE } from '../ledger/attributes.js';
import type { RunAttempts } from '../ledger/run-attempts.js';
import { type DecisionKind, isRerunDecision, type RunMessage } from '../model.js';

/** What a replay of one run attempt may do, given the ledger. */
export type ReplayVerdict =
  | { readonly kind: 'enqueue'; readonly released?: DecisionKind | 'claim' }
  | { readonly kind: 'already_decided'; readonly decision: DecisionKind; readonly reason: string }
  | { readonly kind: 'in_progress'; readonly reason: string }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * Checks the ledger before a run attempt is sent for a new decision. The worker's claim stays
 * the guard against a double re-run; this only reports a decided attempt, and with `force`
 * gives back a record that did not re-run, so the worker can claim the attempt again.
 */
export async function replayGuard(
  ledger: Pick<RunAttempts, 'get' | 'forceRelease'>,
  msg: RunMessage,
  force: boolean,
  now: number = Date.now(),
): Promise<ReplayVerdict> {
  const rec = await ledger.get(msg.repository.id, msg.runId, msg.runAttempt);
  if (!rec) return { kind: 'enqueue' };
  const attempt = `attempt ${msg.runAttempt} of run ${msg.runId}`;
  if (rec.state === STATE.claimed || rec.state === STATE.waiting) {
    if (rec.leaseUntil > now || !force) {
      const until = new Date(rec.leaseUntil).toISOString();
      const held =
        rec.state === STATE.waiting
          ? `is waiting for its re-run turn at ${new Date(rec.slotAt ?? 0).toISOString()}`
          : `is claimed by ${rec.owner}`;
      return {
        kind: 'in_progress',
        reason: `${attempt} ${held} (lease until ${until})${rec.leaseUntil > now ? '' : '; --force releases an expired claim'}`,
      };
    }
    return (await ledger.forceRelease(msg, rec))
      ? { kind: 'enqueue', released: 'claim' }
      : { kind: 'refused', reason: `the ledger entry of ${attempt} changed meanwhile; try again` };
  }
  const decision = rec.decision ?? 'duplicate';
  // A paused run was kept for this: it is sent again without --force (still paused, it is decided paused again).
  if (!force && decision !== 'paused') return { kind: 'already_decided', decision, reason: rec.reason ?? '' };
  if (isRerunDecision(decision)) {
    return {
      kind: 'refused',
      reason: `${attempt} was re-run (${decision}); deciding it again could re-run it twice. Replay attempt ${msg.runAttempt + 1} instead`,
    };
  }
  return (await ledger.forceRelease(msg, rec))
    ? { kind: 'enqueue', released: decision }
    : { kind: 'refused', reason: `the ledger entry of ${attempt} changed meanwhile; try again` };
}
