/**
 * A wait that cannot fit SQS's visibility window (12 hours from the first receive) decided
 * `expired` at once, rather than deferred where the queue would refuse it.
 */
import { decisionEvent, publishQuietly } from '../events/build.js';
import type { RunMessage } from '../model.js';
import { type DecisionSettings, decisionLine, type WorkerContext, type WorkerStores } from './context.js';

/** What expiring a wait past SQS's visibility window needs: the claim and the outputs, nothing of GitHub. */
export interface WaitPastVisibilityContext {
  readonly stores: Pick<WorkerStores, 'attempts'>;
  readonly settings: Pick<DecisionSettings, 'leaseMs'>;
  readonly obs: WorkerContext['obs'];
  readonly clock: () => number;
  readonly owner: string;
}

/**
 * A run whose wait ends past SQS's visibility window is decided `expired` with the reason, never
 * left to come back early and spend receives until the dead-letter queue. The attempt is taken
 * whether it is free (a pause released it) or this worker's own wait for a pace slot; an attempt held
 * or decided by another message is left to that message. Returns whether this call decided it.
 */
export async function expireWaitPastVisibility(
  msg: RunMessage,
  reason: string,
  ctx: WaitPastVisibilityContext,
): Promise<boolean> {
  const base = decisionLine(msg);
  const { attempts } = ctx.stores;
  const { log, metrics, events } = ctx.obs;
  const { owner } = ctx;
  let claim = await attempts.claim(msg, owner, ctx.settings.leaseMs);
  const prior = claim.claimed ? undefined : claim.existing;
  if (prior && !prior.decision && prior.state === 'waiting' && prior.owner === owner) {
    if (await attempts.forceRelease(msg, prior)) claim = await attempts.claim(msg, owner, ctx.settings.leaseMs);
  }
  if (!claim.claimed) {
    log.info('wait past the visibility window left to the message that holds the attempt', { ...base, reason });
    return false;
  }
  const decided = `expired: ${reason}`;
  if (!(await attempts.finalise(msg, owner, 'expired', decided, { requests: 0 }))) {
    log.warn('claim was lost before the expired decision was recorded', base);
    return false;
  }
  log.warn('decision', { ...base, decision: 'expired', reason: decided, requests: 0 });
  metrics.count('Decision', 1, { name: 'decision', value: 'expired' });
  metrics.count('Expired');
  const event = decisionEvent(msg, { decision: 'expired', reason: decided, verdicts: [] }, ctx.clock());
  await publishQuietly(events, event, log, base);
  return true;
}
