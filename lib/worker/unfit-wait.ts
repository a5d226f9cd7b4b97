import { decisionEvent, publishQuietly } from '../events/build.js';
import type { RunMessage } from '../model.js';
import type { WorkerDeps } from './worker-deps.js';

/** What deciding a wait that cannot fit needs: the ledger and the outputs, nothing of GitHub. */
export type UnfitWaitDeps = Pick<WorkerDeps, 'ledger' | 'owner' | 'leaseMs' | 'log' | 'metrics' | 'events' | 'now'>;

/**
 * A run whose wait ends past SQS's visibility window is decided `expired` with the reason, never
 * left to come back early and spend receives until the dead-letter queue. The attempt is taken
 * whether it is free (a pause released it) or this worker's own wait for a turn; an attempt held
 * or decided by another message is left to that message. Returns whether this call decided it.
 */
export async function expireUnfitWait(msg: RunMessage, reason: string, deps: UnfitWaitDeps): Promise<boolean> {
  const base = {
    run_id: msg.runId,
    run_attempt: msg.runAttempt,
    repository: `${msg.repository.owner}/${msg.repository.name}`,
    delivery: msg.deliveryId,
  };
  let claim = await deps.ledger.attempts.claim(msg, deps.owner, deps.leaseMs);
  const prior = claim.claimed ? undefined : claim.existing;
  if (prior && !prior.decision && prior.state === 'waiting' && prior.owner === deps.owner) {
    if (await deps.ledger.attempts.forceRelease(msg, prior))
      claim = await deps.ledger.attempts.claim(msg, deps.owner, deps.leaseMs);
  }
  if (!claim.claimed) {
    deps.log.info('wait past the visibility window left to the message that holds the attempt', { ...base, reason });
    return false;
  }
  const decided = `expired: ${reason}`;
  if (!(await deps.ledger.attempts.finalise(msg, deps.owner, 'expired', decided, { requests: 0 }))) {
    deps.log.warn('claim was lost before the expired decision was recorded', base);
    return false;
  }
  deps.log.warn('decision', { ...base, decision: 'expired', reason: decided, requests: 0 });
  deps.metrics.count('Decision', 1, { name: 'decision', value: 'expired' });
  deps.metrics.count('Expired');
  await publishQuietly(
    deps.events,
    decisionEvent(msg, { decision: 'expired', reason: decided, verdicts: [] }, deps.now()),
    deps.log,
    base,
  );
  return true;
}
