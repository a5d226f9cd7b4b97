/**
 * What a dead letter of the local queue means for its run attempt. A message goes to the
 * dead-letter queue only after MAX_RECEIVE_COUNT receives without a decision, a process's
 * death during one counting as a receive: only then is its attempt recorded `abandoned`, with
 * the reason. A redrive (`reprise replay --dead-letters`) gives those records back, so the
 * redriven message is decided afresh; the worker's claim still guards against a double re-run.
 */
import { decisionEvent, publishQuietly } from '../events/build.js';
import type { EventPublisher } from '../events/types.js';
import type { RunAttempts } from '../ledger/run-attempts.js';
import type { RunMessage } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import { parseRunMessage } from '../webhook/run-message.js';

/** How the reason of an attempt abandoned by the dead-letter queue begins; `reprise report` counts them. */
export const DEAD_LETTERED = 'abandoned: dead-lettered';

/** What settling dead-lettered messages needs: the run-attempt claims, the clock, events, logs and metrics. */
export interface DeadLetterContext {
  readonly attempts: Pick<RunAttempts, 'claim' | 'finalise' | 'get' | 'forceRelease'>;
  /** The owner this process's claims carry. */
  readonly owner: string;
  readonly leaseMs: number;
  readonly events?: EventPublisher;
  readonly log: Log;
  readonly metrics: MetricSink;
  readonly now: () => number;
}

function runMessage(body: string): RunMessage | undefined {
  try {
    return parseRunMessage(body);
  } catch {
    return undefined;
  }
}

const where = (m: RunMessage) => ({
  repository: `${m.repository.owner}/${m.repository.name}`,
  run_id: m.runId,
  run_attempt: m.runAttempt,
});

/**
 * Records the attempt of a message that just went to the dead-letter queue `abandoned`, unless
 * something holds it: a decision already made, or a wait for its re-run slot (the reconciler
 * takes that back once its lease ends). Answers whether it was recorded.
 */
export async function abandonDeadLetter(
  letter: { readonly body: string; readonly messageId: string; readonly receives: number; readonly reason: string },
  ctx: DeadLetterContext,
): Promise<boolean> {
  const msg = runMessage(letter.body);
  if (!msg) {
    ctx.log.error('message dead-lettered', { message_id: letter.messageId, reason: letter.reason });
    ctx.metrics.count('DeadLettered');
    return false;
  }
  const line = { ...where(msg), message_id: letter.messageId, dead_letter_reason: letter.reason };
  ctx.metrics.count('DeadLettered');
  const claim = await ctx.attempts.claim(msg, ctx.owner, ctx.leaseMs);
  if (!claim.claimed) {
    ctx.log.error('message dead-lettered; its attempt is left as the ledger holds it', {
      ...line,
      state: claim.existing?.state,
      decision: claim.existing?.decision,
    });
    return false;
  }
  const reason =
    `${DEAD_LETTERED} after ${letter.receives} receives without a decision (MAX_RECEIVE_COUNT; each a fault, ` +
    'or a stop of the runtime while deciding it); redrive it with reprise replay --dead-letters';
  if (!(await ctx.attempts.finalise(msg, ctx.owner, 'abandoned', reason, { requests: 0, deadLettered: true }))) {
    ctx.log.warn('claim was lost before the abandoned decision was recorded', line);
    return false;
  }
  ctx.log.error('decision', { ...line, decision: 'abandoned', reason, requests: 0 });
  ctx.metrics.count('Decision', 1, { name: 'decision', value: 'abandoned' });
  await publishQuietly(
    ctx.events,
    decisionEvent(msg, { decision: 'abandoned', reason, verdicts: [] }, ctx.now()),
    ctx.log,
    line,
  );
  return true;
}

/**
 * Before a redrive: gives back the `abandoned` record the dead-lettering wrote for each of
 * these messages, so the worker decides the attempt again. Answers how many were given back.
 */
export async function releaseDeadLettered(
  bodies: readonly string[],
  ctx: Pick<DeadLetterContext, 'attempts' | 'log'>,
): Promise<number> {
  let released = 0;
  for (const body of bodies) {
    const msg = runMessage(body);
    if (!msg) continue;
    const rec = await ctx.attempts.get(msg.repository.id, msg.runId, msg.runAttempt);
    if (rec?.decision !== 'abandoned' || !rec.reason?.startsWith(DEAD_LETTERED)) continue;
    if (await ctx.attempts.forceRelease(msg, rec)) released++;
    else ctx.log.warn('dead-lettered attempt changed before the redrive; left as it is', where(msg));
  }
  return released;
}
