import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { Table } from '../../lib/ledger/table.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RunMessage } from '../../lib/model.js';
import { ledgerMessage } from './support.js';

const TABLE = 'report-facts-test';
const T = Date.parse('2026-11-03T08:00:00Z');
const HOUR = 3_600_000;
let dynamo: EmbeddedDynamo;
let now = T;
let ledger: Ledger;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
  ledger = openLedger(dynamo.client, TABLE, () => now);
});
afterAll(async () => dynamo.close());

const msg = (runId: number, runAttempt = 1): RunMessage =>
  ledgerMessage(runId, { runAttempt, deliveryId: `d-${runId}-${runAttempt}` });

async function decide(runId: number, at: number, decision: 'retried' | 'genuine_failure', runAttempt = 1) {
  now = at;
  await ledger.attempts.claim(msg(runId, runAttempt), 'w', 60_000);
  await ledger.attempts.finalise(msg(runId, runAttempt), 'w', decision, `because ${runId}`);
}

describe('the facts of a report period', () => {
  beforeAll(async () => {
    await decide(1, T - 2 * HOUR, 'retried'); // before the period
    await decide(2, T + HOUR, 'retried');
    await decide(3, T + 2 * HOUR, 'genuine_failure');
    now = T + 3 * HOUR;
    await ledger.attempts.claim(msg(4), 'w', 60_000); // claimed, not decided
    now = T + 3 * HOUR;
    const ref = { installationId: 7, repoId: 9, repository: 'acme/web', runId: 2, runAttempt: 2 };
    expect(
      await ledger
        .outcomes({ minOutcomes: 0, lostShare: 1, windowMs: HOUR, coolDownMs: HOUR })
        .recordIfRerun(ref, 'recovered'),
    ).toBe('recorded');
    const signals = ledger.runnerSignals(3600);
    const signal = {
      kind: 'spot-interruption' as const,
      source: 'aws.ec2',
      instanceType: 'm5.large',
      availabilityZone: '',
    };
    await signals.record({ ...signal, runnerKey: 'i-old', eventTime: new Date(T - HOUR).toISOString(), eventId: 'e0' });
    await signals.record({
      ...signal,
      runnerKey: 'i-new',
      eventTime: new Date(T + 90 * 60_000).toISOString(),
      eventId: 'e1',
    });
    await signals.record({
      ...signal,
      runnerKey: 'i-a',
      eventTime: new Date(T + 30 * 60_000).toISOString(),
      eventId: 'e2',
    });
    // Neither a decision, an outcome nor a signal: never a fact.
    await ledger.deliveries.markSeen('g', 'workflow_run');
  });

  it('decisions since the start, newest first, without the stored message or keys', async () => {
    const { decisions } = await ledger.report.facts(T);
    expect(decisions.map((d) => [d.runId, d.decision, d.decidedAt])).toEqual([
      [3, 'genuine_failure', T + 2 * HOUR],
      [2, 'retried', T + HOUR],
    ]);
    for (const d of decisions) {
      expect(d).not.toHaveProperty('message');
      expect(d).not.toHaveProperty('pk');
      expect(d).not.toHaveProperty('ttl');
    }
  });

  it('re-run outcomes since the start, oldest first, each with its run from the key', async () => {
    expect((await ledger.report.facts(T)).outcomes).toEqual([
      { repository: 'acme/web', runId: 2, runAttempt: 2, outcome: 'recovered', recordedAt: T + 3 * HOUR },
    ]);
    expect((await ledger.report.facts(T + 4 * HOUR)).outcomes).toEqual([]);
  });

  it('an outcome marker written under the run’s own partition, as before the markers had theirs, is still reported', async () => {
    const table = new Table(dynamo.client, TABLE);
    await table.put({
      pk: 'RUN#9#5',
      sk: 'OUTCOME#002',
      repository: 'acme/web',
      runAttempt: 2,
      outcome: 'lost_again',
      recordedAt: T + 3.5 * HOUR,
      ttl: 0,
    });
    const outcomes = (await ledger.report.facts(T + 3.25 * HOUR)).outcomes;
    expect(outcomes).toEqual([
      { repository: 'acme/web', runId: 5, runAttempt: 2, outcome: 'lost_again', recordedAt: T + 3.5 * HOUR },
    ]);
  });

  it('runner signals since the start in time order, empty text facts left out', async () => {
    const { signals } = await ledger.report.facts(T);
    expect(signals.map((s) => s.runnerKey)).toEqual(['i-a', 'i-new']);
    expect(signals[0]).toEqual({
      runnerKey: 'i-a',
      kind: 'spot-interruption',
      eventTime: new Date(T + 30 * 60_000).toISOString(),
      eventId: 'e2',
      source: 'aws.ec2',
      instanceType: 'm5.large',
    });
  });
});
