import { describe, expect, it } from 'vitest';
import { ledgerForFile, spotSignal } from '../ledger/support.js';
import { RunnerKeys } from '../../lib/signals/runner-keys.js';
import { runnerSignalLookup } from '../../lib/signals/runner-lookup.js';

const TABLE = 'runner-lookup-test';
const T = Date.parse('2026-11-03T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;
const window = { beforeMs: 5 * MINUTE, afterMs: MINUTE };
const db = ledgerForFile(TABLE, () => T);

const signal = spotSignal;

describe('runnerSignalLookup: the runner’s keys and the signal scope, decided before the store is asked', () => {
  it('looks under every key the runner’s name gives (the name, its instance id, each pattern’s capture)', async () => {
    const store = db.ledger.runnerSignals(3600);
    await store.record(signal('i-0def67890', T - MINUTE));
    await store.record(signal('pool-7', T + 30_000));
    const lookup = runnerSignalLookup(store, new RunnerKeys(['^(pool-\\d+)-']));
    const found = await lookup.forRunner('pool-7-runner-i-0def67890', iso(T), window);
    expect(found.map((s) => s.runnerKey).sort()).toEqual(['i-0def67890', 'pool-7']);
    // Without the pattern, the pool's key is not asked for.
    const plain = await runnerSignalLookup(store).forRunner('pool-7-runner-i-0def67890', iso(T), window);
    expect(plain.map((s) => s.runnerKey)).toEqual(['i-0def67890']);
    expect(await lookup.forRunner(null, iso(T), window)).toEqual([]);
  });

  it('an agent’s signal counts only for the owners its scope names; an EC2 signal counts for all', async () => {
    const store = db.ledger.runnerSignals(3600);
    await store.record({ ...signal('node-s', T), source: 'agent', scope: ['acme'] });
    await store.record({ ...signal('node-s', T + 1), source: 'aws.ec2' });
    const lookup = runnerSignalLookup(store);
    const acme = { login: 'acme', installationId: 1 };
    const other = { login: 'other', installationId: 2 };
    expect(await lookup.forRunner('node-s', iso(T), window, acme)).toHaveLength(2);
    expect((await lookup.forRunner('node-s', iso(T), window, other)).map((s) => s.source)).toEqual(['aws.ec2']);
    expect(await lookup.forRunner('node-s', iso(T), window)).toHaveLength(2);
  });

  it('answers signals as the decision reads them: the scope has done its work and is not passed on', async () => {
    const store = db.ledger.runnerSignals(3600);
    await store.record({ ...signal('node-q', T), source: 'agent', scope: ['acme'] });
    const [found] = await runnerSignalLookup(store).forRunner('node-q', iso(T), window, {
      login: 'acme',
      installationId: 1,
    });
    expect(found).toEqual({ runnerKey: 'node-q', kind: 'spot-interruption', eventTime: iso(T), source: 'agent' });
  });
});
