/**
 * The test-only fault (a run whose claim kills the process) is off unless NODE_ENV is "test" and
 * a run is named; on, every other run is claimed as before. The kill itself is held black-box by
 * test/acceptance/dead-letter-deaths.test.ts: here it would kill the test's own process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KILL_WORKER_ON_RUN, withTestFaults } from '../../lib/local/test-faults.js';
import { type Harness, startHarness } from '../support/harness.js';

describe('withTestFaults', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it.each([
    ['no NODE_ENV', { [KILL_WORKER_ON_RUN]: '42' }],
    ['NODE_ENV=production', { NODE_ENV: 'production', [KILL_WORKER_ON_RUN]: '42' }],
    ['NODE_ENV=test and no run named', { NODE_ENV: 'test' }],
    ['NODE_ENV=test and an empty run id', { NODE_ENV: 'test', [KILL_WORKER_ON_RUN]: '' }],
  ])('%s: the ledger is returned as it is', (_what, env) => {
    expect(withTestFaults(h.ledger, env)).toBe(h.ledger);
  });

  it('on: only the attempts store is wrapped, and a run other than the named one is claimed as before', async () => {
    const faulty = withTestFaults(h.ledger, { NODE_ENV: 'test', [KILL_WORKER_ON_RUN]: '1' });
    expect(faulty).not.toBe(h.ledger);
    expect(faulty.attempts).not.toBe(h.ledger.attempts);
    expect(faulty.decisions).toBe(h.ledger.decisions);
    expect(faulty.deliveries).toBe(h.ledger.deliveries);

    const msg = h.message(h.sim.addRun({ repo: 'acme/fine', jobs: [{ name: 'build', conclusion: 'failure' }] }).id);
    expect(msg.runId).not.toBe(1);
    expect(await faulty.attempts.claim(msg, 'w', 60_000)).toMatchObject({ claimed: true });
    expect(await faulty.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toMatchObject({ owner: 'w' });
    expect(await faulty.attempts.claim(msg, 'other', 60_000)).toMatchObject({ claimed: false });
  });
});
