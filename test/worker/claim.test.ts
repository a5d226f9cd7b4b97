import { describe, expect, it } from 'vitest';
import type { DecisionEvent } from '../../lib/events/types.js';
import type { AttemptRecord } from '../../lib/records.js';
import { noteCallFailed, pauseForBreaker, releaseClaim, settleUnclaimed } from '../../lib/worker/claim.js';
import { decisionLine } from '../../lib/worker/context.js';
import { runMessage } from '../support/fixtures.js';
import { fakeWorld } from '../support/fakes/context.js';

/** The record a second message finds: what `claim` answers when it is refused. */
async function heldBy(w: ReturnType<typeof fakeWorld>, msg = runMessage()): Promise<AttemptRecord | undefined> {
  const refused = await w.attempts.claim({ ...msg, deliveryId: 'copy' }, 'worker-b', 60_000);
  expect(refused.claimed).toBe(false);
  return refused.claimed ? undefined : refused.existing;
}

describe('settling an attempt this worker could not claim', () => {
  it('its own waiting message, back before the turn, waits out the rest of it', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    await w.attempts.wait(msg, 'worker-b', w.clock.now() + 4_500, w.clock.now(), 60_000);
    const prior = (await w.attempts.get(msg.repository.id, msg.runId, msg.runAttempt))!;
    expect(await settleUnclaimed(msg, prior, w.ctx, decisionLine(msg))).toEqual({
      kind: 'deferred',
      untilMs: w.clock.now() + 4_500,
      reason: 'waiting for a re-run turn in 5s',
      metric: 'RerunWaiting',
    });
    expect(w.events.published).toEqual([]);
  });

  it('a copy of a waiting attempt under another delivery is a duplicate: the waiting message comes back itself', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    const slot = w.clock.now() + 9_000;
    await w.attempts.wait(msg, 'worker-b', slot, w.clock.now(), 60_000);
    const copy = { ...msg, deliveryId: 'another-delivery' };
    const prior = await heldBy(w, copy);
    const result = await settleUnclaimed(copy, prior, w.ctx, decisionLine(copy));
    expect(result).toEqual({
      kind: 'duplicate',
      reason: `attempt waits for its re-run turn at ${new Date(slot).toISOString()} under another delivery`,
    });
    expect(w.log.named('decision')).toMatchObject([{ decision: 'duplicate', requests: 0 }]);
    expect(w.metrics.get('Decision{decision=duplicate}')).toBe(1);
    expect((w.events.published as DecisionEvent[]).map((e) => e.decision)).toEqual(['duplicate']);
  });

  it('a decided attempt is a duplicate that names the decision', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    await w.attempts.finalise(msg, 'worker-b', 'retried', 'lost runner');
    const result = await settleUnclaimed(msg, await heldBy(w), w.ctx, decisionLine(msg));
    expect(result).toEqual({ kind: 'duplicate', reason: 'attempt already decided: retried' });
    expect(w.events.published).toHaveLength(1);
  });

  it('an attempt another worker is deciding is a duplicate', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    const result = await settleUnclaimed(msg, await heldBy(w), w.ctx, decisionLine(msg));
    expect(result).toEqual({ kind: 'duplicate', reason: 'attempt is being decided by another worker' });
  });

  it('an attempt whose re-run call failed unanswered is not called again: a duplicate, logged unsettled, no decision published', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    await w.attempts.noteCallFailed(msg, 'worker-b', 'GitHub answered 502: bad gateway');
    const result = await settleUnclaimed(msg, await heldBy(w), w.ctx, decisionLine(msg));
    expect(result).toMatchObject({ kind: 'duplicate', reason: expect.stringMatching(/failed \(GitHub answered 502/) });
    expect(w.log.named('re-run call unsettled')).toHaveLength(1);
    expect(w.log.named('decision')).toEqual([]);
    expect(w.metrics.get('RerunCallUnsettled')).toBe(1);
    expect(w.events.published).toEqual([]);
  });
});

describe('giving the claim back, or noting its failed call', () => {
  it('only the claim’s owner can release it', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    await releaseClaim(msg, w.ctx, decisionLine(msg));
    expect(w.attempts.of(msg)).toMatchObject({ state: 'claimed', owner: 'worker-b' });
    await releaseClaim(msg, w.as('worker-b'), decisionLine(msg));
    expect(await w.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
  });

  it('a failed call is noted on the claim, which stays', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, w.ctx.owner, 60_000);
    await noteCallFailed(msg, Object.assign(new Error('bad gateway'), { status: 502 }), w.ctx, decisionLine(msg));
    expect(w.attempts.of(msg)).toMatchObject({
      state: 'claimed',
      owner: w.ctx.owner,
      callError: 'GitHub answered 502: bad gateway',
    });
  });

  it('the breaker’s pause gives the claim back and defers the message to the end of the pause', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, w.ctx.owner, 60_000);
    const untilMs = w.clock.now() + 30 * 60_000;
    const result = await pauseForBreaker(msg, { untilMs, reason: 'paused' }, w.ctx, decisionLine(msg));
    expect(result).toEqual({ kind: 'deferred', untilMs, reason: 'paused', metric: 'RerunPaused' });
    expect(await w.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
    expect(w.metrics.get('BreakerDeferred')).toBe(1);
  });
});
