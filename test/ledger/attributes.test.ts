import { describe, expect, it } from 'vitest';
import { ATTR, STATE } from '../../lib/ledger/attributes.js';
import { keys } from '../../lib/ledger/keys.js';
import { Table } from '../../lib/ledger/table.js';
import { ledgerForFile, ledgerMessage } from './support.js';

const TABLE = 'attributes-test';
const T = Date.parse('2026-11-03T08:00:00Z');
const db = ledgerForFile(TABLE, () => T);

/** The item as DynamoDB stores it, read back raw under the attempt's key. */
const stored = async (repoId: number, runId: number, runAttempt: number): Promise<Record<string, unknown>> =>
  (await new Table(db.dynamo.client, TABLE).get<Record<string, unknown>>(
    keys.runAttempt(repoId, runId, runAttempt),
    true,
  ))!;

describe('the table’s attribute names, as the ledger writes them', () => {
  it('a claim writes the claim’s attributes under their ATTR names, with the state claimed', async () => {
    const msg = ledgerMessage(501, { installationId: 1 });
    expect(await db.ledger.attempts.claim(msg, 'worker-a', 60_000)).toMatchObject({ claimed: true });
    const item = await stored(msg.repository.id, msg.runId, msg.runAttempt);
    for (const name of [ATTR.pk, ATTR.sk, ATTR.ttl, ATTR.state, ATTR.owner, ATTR.claimedAt, ATTR.leaseUntil]) {
      expect(item, name).toHaveProperty(name);
    }
    expect(item[ATTR.state]).toBe(STATE.claimed);
    expect(item[ATTR.owner]).toBe('worker-a');
    expect(item[ATTR.leaseUntil]).toBe(T + 60_000);
  });

  it('a decision turns the state to decided and adds the decision’s attributes; a second claim is refused', async () => {
    const msg = ledgerMessage(502, { installationId: 1 });
    await db.ledger.attempts.claim(msg, 'worker-a', 60_000);
    expect(await db.ledger.attempts.finalise(msg, 'worker-a', 'retried', 'the runner was lost')).toBe(true);
    const item = await stored(msg.repository.id, msg.runId, msg.runAttempt);
    expect(item[ATTR.state]).toBe(STATE.decided);
    expect(item[ATTR.decision]).toBe('retried');
    expect(item[ATTR.reason]).toBe('the runner was lost');
    expect(item[ATTR.decidedAt]).toBe(T);
    expect(await db.ledger.attempts.claim(msg, 'worker-b', 60_000)).toMatchObject({ claimed: false });
  });

  it('no attribute a run attempt is stored with falls outside the names expressions can reach', async () => {
    const msg = ledgerMessage(503, { installationId: 1 });
    await db.ledger.attempts.claim(msg, 'worker-a', 60_000);
    await db.ledger.attempts.finalise(msg, 'worker-a', 'ignored', 'genuine failure', { jobs: 1 });
    const item = await stored(msg.repository.id, msg.runId, msg.runAttempt);
    // The record's own facts (repository, run, attempt) are written whole with the claim; the rest are ATTR's.
    const recordFacts = new Set([
      'repository',
      'repoId',
      'installationId',
      'runId',
      'runAttempt',
      'workflow',
      'createdAt',
    ]);
    const unknown = Object.keys(item).filter((k) => !(k in ATTR) && !recordFacts.has(k));
    expect(unknown).toEqual([]);
  });
});
