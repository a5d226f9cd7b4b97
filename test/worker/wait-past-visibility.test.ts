import { describe, expect, it } from 'vitest';
import { expireWaitPastVisibility } from '../../lib/worker/wait-past-visibility.js';
import { runMessage } from '../support/fixtures.js';
import { fakeWorld } from '../support/fakes/context.js';

const msg = runMessage();
const REASON = 'waits 13 hours for the re-run turn; past the 12-hour window';

describe('a wait that cannot fit in the visibility window is decided expired', () => {
  it('a free attempt is claimed and decided expired with the reason: logged, counted and published once', async () => {
    const w = fakeWorld();
    expect(await expireWaitPastVisibility(msg, REASON, w.ctx)).toBe(true);
    expect(w.attempts.of(msg)).toMatchObject({ state: 'decided', decision: 'expired', reason: `expired: ${REASON}` });
    expect(w.log.named('decision')).toEqual([
      expect.objectContaining({ level: 'warn', decision: 'expired', reason: `expired: ${REASON}`, requests: 0 }),
    ]);
    expect(w.metrics.get('Expired')).toBe(1);
    expect(w.metrics.get('Decision{decision=expired}')).toBe(1);
    expect(w.events.published).toHaveLength(1);
    expect(w.events.published[0]).toMatchObject({ kind: 'decision', decision: 'expired', rerun: false, run_id: 9001 });
  });

  it("this worker's own wait for a pace slot is taken over and decided, not left to come back early", async () => {
    const w = fakeWorld();
    await w.attempts.claim(msg, 'worker-a', 60_000);
    const slotAt = w.clock.now() + 13 * 3_600_000;
    expect(await w.attempts.wait(msg, 'worker-a', slotAt, w.clock.now(), 60_000)).toBe(true);
    expect(await expireWaitPastVisibility(msg, REASON, w.ctx)).toBe(true);
    expect(w.attempts.of(msg)).toMatchObject({ state: 'decided', decision: 'expired' });
  });

  it('an attempt another worker holds, or one already decided, is left to it: nothing decided, nothing published', async () => {
    const w = fakeWorld();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    expect(await expireWaitPastVisibility(msg, REASON, w.ctx)).toBe(false);
    expect(w.attempts.of(msg)).toMatchObject({ state: 'claimed', owner: 'worker-b' });
    expect(w.log.named('wait past the visibility window left to the message that holds the attempt')).toHaveLength(1);

    const other = runMessage({ runId: 9002 });
    await w.attempts.claim(other, 'worker-b', 60_000);
    await w.attempts.finalise(other, 'worker-b', 'retried', 'runner lost');
    expect(await expireWaitPastVisibility(other, REASON, w.ctx)).toBe(false);
    expect(w.attempts.of(other)).toMatchObject({ decision: 'retried' });
    expect(w.metrics.get('Expired')).toBe(0);
    expect(w.events.published).toEqual([]);
  });

  it("another worker's wait is not taken over", async () => {
    const w = fakeWorld();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    await w.attempts.wait(msg, 'worker-b', w.clock.now() + 13 * 3_600_000, w.clock.now(), 60_000);
    expect(await expireWaitPastVisibility(msg, REASON, w.ctx)).toBe(false);
    expect(w.attempts.of(msg)).toMatchObject({ state: 'waiting', owner: 'worker-b' });
  });
});
