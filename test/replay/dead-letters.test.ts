import { describe, expect, it } from 'vitest';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import {
  abandonDeadLetter,
  DEAD_LETTERED,
  type DeadLetterContext,
  releaseDeadLettered,
} from '../../lib/replay/dead-letters.js';
import { runMessage } from '../support/fixtures.js';
import { MemoryAttempts } from '../support/fakes/attempts.js';
import { MemoryEvents } from '../support/fakes/counters.js';
import { MemoryLog } from '../support/memory-log.js';

const NOW = Date.parse('2026-10-02T16:30:00Z');
const msg = runMessage();

function context() {
  const attempts = new MemoryAttempts(() => NOW);
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  const events = new MemoryEvents();
  const ctx: DeadLetterContext = { attempts, owner: 'local-1', leaseMs: 60_000, events, log, metrics, now: () => NOW };
  return { attempts, log, metrics, events, ctx };
}

/** The ledger's methods bound to it, so one of them can be replaced. */
const ownMethods = (a: MemoryAttempts) => ({
  claim: a.claim.bind(a),
  finalise: a.finalise.bind(a),
  get: a.get.bind(a),
  forceRelease: a.forceRelease.bind(a),
});

const letter = (body: string, receives = 5) => ({ body, messageId: 'm-1', receives, reason: 'MAX_RECEIVE_COUNT' });

describe('a message dead-lettered: its attempt recorded abandoned', () => {
  it('a free attempt is recorded abandoned with the receives and the redrive to do; logged, counted and published', async () => {
    const c = context();
    expect(await abandonDeadLetter(letter(JSON.stringify(msg), 5), c.ctx)).toBe(true);
    const rec = c.attempts.of(msg);
    expect(rec).toMatchObject({
      state: 'decided',
      decision: 'abandoned',
      details: { deadLettered: true, requests: 0 },
    });
    expect(rec.reason).toMatch(new RegExp(`^${DEAD_LETTERED} after 5 receives`));
    expect(rec.reason).toContain('reprise replay --dead-letters');
    expect(c.log.named('decision')).toEqual([expect.objectContaining({ decision: 'abandoned', message_id: 'm-1' })]);
    expect(c.metrics.get('DeadLettered')).toBe(1);
    expect(c.metrics.get('Decision{decision=abandoned}')).toBe(1);
    expect(c.events.published).toEqual([expect.objectContaining({ decision: 'abandoned', run_id: msg.runId })]);
  });

  it('an attempt already decided, or held, is left as the ledger holds it: logged with its state, still counted', async () => {
    const c = context();
    await c.attempts.claim(msg, 'worker-b', 60_000);
    await c.attempts.finalise(msg, 'worker-b', 'retried', 'runner lost');
    expect(await abandonDeadLetter(letter(JSON.stringify(msg)), c.ctx)).toBe(false);
    expect(c.attempts.of(msg).decision).toBe('retried');
    expect(c.log.named('message dead-lettered; its attempt is left as the ledger holds it')).toEqual([
      expect.objectContaining({ state: 'decided', decision: 'retried' }),
    ]);
    expect(c.metrics.get('DeadLettered')).toBe(1);
    expect(c.events.published).toEqual([]);
  });

  it('a body that is no run message is logged and counted, and nothing is written', async () => {
    const c = context();
    expect(await abandonDeadLetter(letter('{"not":"a run"}'), c.ctx)).toBe(false);
    expect(c.log.named('message dead-lettered')).toEqual([expect.objectContaining({ message_id: 'm-1' })]);
    expect(c.metrics.get('DeadLettered')).toBe(1);
    expect(c.attempts.writes).toEqual([]);
  });
});

describe('before a redrive: the dead-lettering is given back', () => {
  it('gives back only records the dead-lettering wrote, and counts them', async () => {
    const c = context();
    const dead = runMessage({ runId: 1 });
    const otherAbandoned = runMessage({ runId: 2 });
    const retried = runMessage({ runId: 3 });
    const unknown = runMessage({ runId: 4 });
    await abandonDeadLetter(letter(JSON.stringify(dead)), c.ctx);
    await c.attempts.claim(otherAbandoned, 'w', 60_000);
    await c.attempts.finalise(otherAbandoned, 'w', 'abandoned', 'abandoned: the runtime stopped twice');
    await c.attempts.claim(retried, 'w', 60_000);
    await c.attempts.finalise(retried, 'w', 'retried', 'runner lost');

    const bodies = [dead, otherAbandoned, retried, unknown].map((m) => JSON.stringify(m));
    expect(await releaseDeadLettered([...bodies, 'not json'], c.ctx)).toBe(1);
    expect(await c.attempts.get(dead.repository.id, dead.runId, dead.runAttempt)).toBeUndefined();
    expect(c.attempts.of(otherAbandoned).decision).toBe('abandoned');
    expect(c.attempts.of(retried).decision).toBe('retried');
  });

  it('a record that changed before the release is left as it is, with a warning', async () => {
    const c = context();
    await abandonDeadLetter(letter(JSON.stringify(msg)), c.ctx);
    // The record changes between the read and the conditional release: the release is refused.
    const attempts = { ...ownMethods(c.attempts), forceRelease: async () => false };
    expect(await releaseDeadLettered([JSON.stringify(msg)], { attempts, log: c.log })).toBe(0);
    expect(c.log.named('dead-lettered attempt changed before the redrive; left as it is')).toHaveLength(1);
  });
});
