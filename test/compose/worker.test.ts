/**
 * The worker as Lambda and the local runtime assemble it, on dynalite and the GitHub simulator:
 * what `workerContext` wires from the settings, and that `composeWorker`'s handler decides a run
 * end to end with the stores the parts share.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeWorker, DEFAULT_LEASE_MS, workerContext, type WorkerProcessParts } from '../../lib/compose/worker.js';
import type { RepriseEvent } from '../../lib/events/types.js';
import type { RunMessage } from '../../lib/model.js';
import type { RunOutcome } from '../../lib/worker/result.js';
import { INLINE_TURN_WAIT_MS } from '../../lib/worker/turn.js';
import { lostJob } from '../support/evidence.js';
import { type Harness, startHarness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

/** The parts a process gives the worker: the harness's table, ledger, signals and GitHub clients. */
function parts(owner: string, over: Partial<WorkerProcessParts> = {}): WorkerProcessParts {
  return {
    ledger: h.ledger,
    signals: h.signals,
    client: h.client,
    log: h.log,
    metrics: h.metrics,
    owner,
    defer: async () => undefined,
    ...over,
  };
}

describe('composeWorker: the handler Lambda and the local runtime run', () => {
  it('decides a run lost to its runner end to end: one re-run at GitHub, recorded retried in the ledger, the decision published to the parts’ events', async () => {
    const run = h.sim.addRun({ repo: 'acme/compose-worker', jobs: [lostJob('test', 'runner-compose-1')] });
    const message = h.message(run.id);
    const outcomes: [RunMessage, RunOutcome][] = [];
    const published: RepriseEvent[] = [];
    const events = { publish: async (e: RepriseEvent) => void published.push(e) };
    const handle = composeWorker(h.settings, parts('worker-a', { onOutcome: (m, o) => outcomes.push([m, o]), events }));

    const res = await handle(h.sqsEvent([message]));

    expect(res.batchItemFailures).toEqual([]);
    expect(outcomes.map(([m, o]) => [m.runId, o.decision])).toEqual([[run.id, 'retried']]);
    expect(h.sim.rerunTally(run.id).accepted).toBe(1);
    const rec = await h.ledger.attempts.get(message.repository.id, message.runId, message.runAttempt);
    expect(rec).toMatchObject({ state: 'decided', decision: 'retried', owner: 'worker-a' });
    expect(published).toEqual([expect.objectContaining({ kind: 'decision', decision: 'retried', run_id: run.id })]);
  });

  it('a second worker on the same parts answers a copy of the attempt duplicate: the claim is in the shared ledger', async () => {
    const run = h.sim.addRun({ repo: 'acme/compose-copy', jobs: [lostJob('test', 'runner-compose-2')] });
    const first = h.message(run.id);
    await composeWorker(h.settings, parts('worker-a'))(h.sqsEvent([first]));
    const outcomes: RunOutcome[] = [];
    const copy = { ...first, deliveryId: 'redelivered-copy' };
    await composeWorker(h.settings, parts('worker-b', { onOutcome: (_m, o) => outcomes.push(o) }))(h.sqsEvent([copy]));
    expect(outcomes.map((o) => o.decision)).toEqual(['duplicate']);
    expect(h.sim.rerunTally(run.id).accepted).toBe(1);
  });
});

describe('workerContext: every default applied once', () => {
  it('looks signals up in the signal store the process shares', async () => {
    const at = '2026-03-01T10:00:00.000Z';
    await h.signals.record({
      runnerKey: 'i-0aaa22222',
      kind: 'spot-interruption',
      eventTime: at,
      eventId: 'shared-store',
      source: 'test',
    });
    const ctx = workerContext(h.settings, parts('worker-s'));
    const found = await ctx.stores.signals.forRunner('runner-i-0aaa22222', at, h.settings.signalWindow);
    expect(found.map((s) => s.runnerKey)).toEqual(['i-0aaa22222']);
  });

  it('on the process clock: the default lease, in-process turn waits, no events, no allow-list, the pace’s max wait', () => {
    const ctx = workerContext(h.settings, parts('worker-d'));
    expect(ctx.settings.leaseMs).toBe(DEFAULT_LEASE_MS);
    expect(ctx.settings.inlineTurnWaitMs).toBe(INLINE_TURN_WAIT_MS);
    expect(ctx.settings.repositoryAllowList).toBeNull();
    expect(ctx.settings.maxWaitMs).toBe(h.settings.pace.maxWaitMs);
    expect(ctx.settings.defaults).toEqual(h.settings.defaults);
    expect(ctx.clock).toBe(Date.now);
    expect(ctx.owner).toBe('worker-d');
    expect(ctx.stores.attempts).toBe(h.ledger.attempts);
    expect(ctx.github.graphqlUrl).toBe(h.settings.graphqlUrl);
  });

  it('on a test’s clock: the clock is the decision’s, and a turn is never slept on in-process', () => {
    const now = () => 1_000;
    const ctx = workerContext(h.settings, parts('worker-e', { now, leaseMs: 60_000 }));
    expect(ctx.clock).toBe(now);
    expect(ctx.settings.inlineTurnWaitMs).toBe(0);
    expect(ctx.settings.leaseMs).toBe(60_000);
  });
});
