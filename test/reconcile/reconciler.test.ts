import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../lib/ledger/ledger.js';
import { startDynamo } from '../../lib/local/dynamo.js';
import { runMessageFromPayload } from '../../lib/webhook/workflow-run.js';
import { startHarness } from '../support/harness.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import { workflowRunPayload } from '../support/webhooks.js';
import { kit, LOST, lostRun } from '../support/reconcile-kit.js';

describe('reconciler: the ledger cannot be read', () => {
  it('does nothing, never throws, counts SweepFailed; the next sweep continues once DynamoDB is back', async () => {
    const h = await startHarness();
    const down = await startDynamo({ table: 'down' });
    try {
      const ledger = openLedger(down.client, 'down');
      const run = lostRun(h);
      await ledger.attempts.claim(h.message(run.id), 'dead', 1);
      await down.stop();
      h.sim.resetRequests();
      const k = kit(h, { ledger, offsetMs: 1_000 });
      const counts = await k.reconciler.sweep();
      expect(counts).toMatchObject({ failed: true, orphansReleased: 0, redelivered: 0 });
      expect(counts.errors).toBe(2);
      expect(k.metrics.get('SweepFailed')).toBe(1);
      expect(h.sim.requests).toEqual([]);
      expect(k.enqueued()).toEqual([]);
      expect(h.log.named('reconcile sweep failed; the next sweep carries on')).toHaveLength(1);

      await down.restart();
      h.log.clear();
      const after = await k.reconciler.sweep();
      // The failure's own words, if any, make a red run say why.
      expect({
        ...after,
        failures: h.log.named('reconcile sweep failed; the next sweep carries on')[0]?.failures,
      }).toMatchObject({
        failed: false,
        errors: 0,
      });
    } finally {
      await down.close();
      await h.close();
    }
  });
});

describe('reconciler in the local runtime', () => {
  let local: LocalSetup;
  beforeAll(async () => {
    local = await startLocal({ secret: 'timer-secret', env: { RECONCILE_INTERVAL_SECONDS: '1' } });
  });
  afterAll(async () => local.close());

  it('runs a sweep on a timer (RECONCILE_INTERVAL_SECONDS): an orphaned claim is released and decided', async () => {
    const { sim, rt } = local;
    const outcomes = () => local.outcomes.map((o) => o.outcome);
    const run = sim.addRun({
      repo: 'acme/timer',
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] }],
    });
    const msg = runMessageFromPayload(workflowRunPayload(sim, run.id), 'timer-delivery');
    await rt.ledger.attempts.claim(msg, 'dead-local-worker', 50);
    // A bound on waiting, not on the timer: a loaded machine only makes the sweep come later.
    const deadline = Date.now() + 20_000;
    while (outcomes().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(sim.rerunRequests.map((r) => r.runId)).toEqual([run.id]);
    expect(outcomes().map((o) => o.decision)).toEqual(['retried']);
    expect(rt.metrics.get('OrphanReleased')).toBe(1);
  });
});
