import { describe, expect, it } from 'vitest';
import { ledgerForFile, spotSignal } from './support.js';
import { keys } from '../../lib/ledger/keys.js';
import { Table } from '../../lib/ledger/table.js';

const TABLE = 'runner-signals-test';
const T = Date.parse('2026-11-03T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;
let now = T;
const db = ledgerForFile(TABLE, () => now);

const signal = spotSignal;
const window = { beforeMs: 5 * MINUTE, afterMs: MINUTE };

describe('recording a runner signal', () => {
  it('writes one record per runner key, event time and event id, under its TTL; a repeat answers false', async () => {
    now = T;
    const store = db.ledger.runnerSignals(3600);
    expect(await store.record(signal('i-0abc12345', T))).toBe(true);
    expect(await store.record(signal('i-0abc12345', T))).toBe(false);
    const item = await new Table(db.dynamo.client, TABLE).get<Record<string, unknown>>(
      keys.runnerSignal('i-0abc12345', iso(T), `e-i-0abc12345-${T}`),
      true,
    );
    expect(item).toMatchObject({ kind: 'spot-interruption', source: 'aws.ec2', ttl: Math.floor(T / 1000) + 3600 });
  });

  it('keeps one ISO form of the event time, so a time written with an offset sorts with the others', async () => {
    const store = db.ledger.runnerSignals(3600);
    expect(await store.record({ ...signal('node-tz', 0), eventTime: '2026-11-03T09:00:00+01:00' })).toBe(true);
    const found = await store.around(['node-tz'], iso(T), window);
    expect(found.map((s) => s.eventTime)).toEqual([iso(T)]);
  });

  it('refuses an event time that is not a date, naming it', () => {
    expect(() => db.ledger.runnerSignals(3600).record({ ...signal('x', T), eventTime: 'soon' })).toThrow(/"soon"/);
  });
});

describe('reading signals back under the keys the caller gives', () => {
  it('finds signals under each key given, within the window around completion, and nothing outside', async () => {
    const store = db.ledger.runnerSignals(3600);
    await store.record(signal('i-0def67890', T - MINUTE));
    await store.record(signal('pool-7', T + 30_000));
    await store.record(signal('i-0def67890', T - 6 * MINUTE));
    await store.record(signal('i-0def67890', T + 2 * MINUTE));
    const found = await store.around(['pool-7-runner-i-0def67890', 'i-0def67890', 'pool-7'], iso(T), window);
    expect(found.map((s) => [s.runnerKey, s.eventTime]).sort()).toEqual([
      ['i-0def67890', iso(T - MINUTE)],
      ['pool-7', iso(T + 30_000)],
    ]);
    expect(found[0]).not.toHaveProperty('pk');
    expect(await store.around([], iso(T), window)).toEqual([]);
  });

  it('without a completion time the window is around now', async () => {
    now = T + 10 * MINUTE;
    const store = db.ledger.runnerSignals(3600);
    await store.record(signal('i-0aaa11111', now - MINUTE));
    expect(await store.around(['i-0aaa11111'], null, window)).toHaveLength(1);
    now = T;
  });

  it('answers each signal with the scope it was posted under, and an EC2 signal with none: whom it counts for is not the store’s call', async () => {
    const store = db.ledger.runnerSignals(3600);
    await store.record({ ...signal('node-s', T), scope: ['acme'] });
    await store.record({ ...signal('node-s', T + 1), source: 'aws.ec2' });
    const found = await store.around(['node-s'], iso(T), window);
    expect(found.map((s) => s.scope)).toEqual([['acme'], undefined]);
    expect(found[1]).not.toHaveProperty('scope');
  });

  it('the same event from two scopes is two records; a repeat of one answers false', async () => {
    const store = db.ledger.runnerSignals(3600);
    const same = signal('node-two', T, 'same-body');
    expect(await store.record({ ...same, source: 'agent', scope: ['mallory'] })).toBe(true);
    expect(await store.record({ ...same, source: 'agent', scope: ['acme'] })).toBe(true);
    expect(await store.record({ ...same, source: 'agent', scope: ['acme'] })).toBe(false);
    const found = await store.around(['node-two'], iso(T), window);
    expect(found.map((s) => s.scope).sort()).toEqual([['acme'], ['mallory']]);
  });
});

describe('agent posts', () => {
  it('firstSeen answers the first receipt of an event id, the same on a retry, and a new one past the horizon', async () => {
    const store = db.ledger.runnerSignals(3600);
    expect(await store.firstSeen('post-1', T, 10 * MINUTE)).toBe(iso(T));
    expect(await store.firstSeen('post-1', T + MINUTE, 10 * MINUTE)).toBe(iso(T));
    expect(await store.firstSeen('post-1', T + 11 * MINUTE, 10 * MINUTE)).toBe(iso(T + 11 * MINUTE));
  });

  it('firstSeen is kept per scope: another scope’s first receipt of the same event id is not this one’s', async () => {
    const store = db.ledger.runnerSignals(3600);
    expect(await store.firstSeen('post-2', T, 10 * MINUTE, ['mallory'])).toBe(iso(T));
    expect(await store.firstSeen('post-2', T + MINUTE, 10 * MINUTE, ['acme'])).toBe(iso(T + MINUTE));
    expect(await store.firstSeen('post-2', T + 2 * MINUTE, 10 * MINUTE, ['acme'])).toBe(iso(T + MINUTE));
  });

  it('firstUse: a signature is used once until its window ends, then free again', async () => {
    now = T;
    const store = db.ledger.runnerSignals(3600);
    expect(await store.firstUse('sig-1', T + 5 * MINUTE)).toBe(true);
    expect(await store.firstUse('sig-1', T + 5 * MINUTE)).toBe(false);
    now = T + 5 * MINUTE + 1;
    expect(await store.firstUse('sig-1', now + 5 * MINUTE)).toBe(true);
    now = T;
  });
});
