import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lib/ledger/keys.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { describePause, EVERYTHING, parsePauseScope, scopesOf } from '../../lib/ledger/pauses.js';
import { createTable, Table } from '../../lib/ledger/table.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';

let dynamo: EmbeddedDynamo;
let n = 0;
beforeAll(async () => {
  dynamo = await startDynamo({ table: 'pauses-0' });
});
afterAll(async () => dynamo.close());

/** A fresh table for each test, on a clock the test moves. */
async function fresh() {
  const name = `pauses-${++n}`;
  await createTable(dynamo.client, name);
  let now = Date.parse('2026-12-05T10:00:00Z');
  const ledger = openLedger(dynamo.client, name, () => now);
  return { ledger, table: new Table(dynamo.client, name), advance: (ms: number) => (now += ms) };
}

describe('the operator’s pauses in the ledger', () => {
  it('a pause of an owner holds its repositories, not another owner’s; resume lifts it', async () => {
    const { ledger } = await fresh();
    await ledger.pauses.pause({ scope: 'octo-org', by: 'ops@box', reason: 'drill' });
    expect(await ledger.pauses.active('Octo-Org', 'app')).toMatchObject({ scope: 'octo-org', reason: 'drill' });
    expect(await ledger.pauses.active('other', 'app')).toBeUndefined();
    expect(await ledger.pauses.resume('octo-org')).toMatchObject({ scope: 'octo-org', by: 'ops@box' });
    expect(await ledger.pauses.active('octo-org', 'app')).toBeUndefined();
    expect(await ledger.pauses.resume('octo-org')).toBeUndefined();
  });

  it('a pause of one repository leaves the owner’s other repositories alone', async () => {
    const { ledger } = await fresh();
    await ledger.pauses.pause({ scope: 'octo-org/app', by: 'ops', reason: 'noisy' });
    expect(await ledger.pauses.active('octo-org', 'app')).toMatchObject({ scope: 'octo-org/app' });
    expect(await ledger.pauses.active('octo-org', 'api')).toBeUndefined();
  });

  it('a pause of everything holds every repository, and is listed first', async () => {
    const { ledger } = await fresh();
    await ledger.pauses.pause({ scope: 'octo-org/app', by: 'ops', reason: 'one' });
    await ledger.pauses.pause({ scope: EVERYTHING, by: 'ops', reason: 'all' });
    expect(await ledger.pauses.active('anyone', 'anything')).toMatchObject({ scope: '*', reason: 'all' });
    expect((await ledger.pauses.list()).map((p) => p.scope)).toEqual(['*', 'octo-org/app']);
  });

  it('--for: the pause ends by itself at its end time, before DynamoDB’s TTL removes the item', async () => {
    const { ledger, table } = await fresh();
    const { pause } = await ledger.pauses.pause({ scope: 'octo-org', by: 'ops', reason: 'drill', forMs: 30 * 60_000 });
    expect(pause.until).toBe('2026-12-05T10:30:00.000Z');
    const item = await table.get<{ ttl: number }>(keys.pause('octo-org'), true);
    // The item expires a day after the pause ends; a pause without an end a year after it was written.
    expect(item?.ttl).toBe(Date.parse('2026-12-06T10:30:00Z') / 1000);
    expect(await ledger.pauses.active('octo-org', 'app')).toBeDefined();
    const later = ledger.at(() => Date.parse('2026-12-05T10:30:00Z'));
    expect(await later.pauses.active('octo-org', 'app')).toBeUndefined();
    expect(await later.pauses.list()).toEqual([]);
  });

  it('a second pause of the same scope replaces the first and says which it replaced', async () => {
    const { ledger, advance } = await fresh();
    await ledger.pauses.pause({ scope: 'octo-org', by: 'a', reason: 'first' });
    advance(1000);
    const second = await ledger.pauses.pause({ scope: 'octo-org', by: 'b', reason: 'second' });
    expect(second.replaced).toMatchObject({ by: 'a', reason: 'first' });
    expect(await ledger.pauses.active('octo-org', 'x')).toMatchObject({ by: 'b', reason: 'second' });
  });

  it('concurrent pauses of one scope: each write is conditional, and one of them is what holds', async () => {
    const { ledger } = await fresh();
    const done = await Promise.all(
      ['a', 'b', 'c', 'd'].map((by) => ledger.pauses.pause({ scope: 'octo-org', by, reason: by })),
    );
    expect(done).toHaveLength(4);
    const held = await ledger.pauses.list();
    expect(held).toHaveLength(1);
    expect(['a', 'b', 'c', 'd']).toContain(held[0]!.by);
  });

  it.each([
    [undefined, '*'],
    ['*', '*'],
    ['Octo-Org', 'octo-org'],
    ['octo-org/My.Repo_1', 'octo-org/my.repo_1'],
  ])('scope %s reads as %s', (raw, scope) => {
    expect(parsePauseScope(raw)).toBe(scope);
  });

  it.each(['octo-org/app#12', 'a/b/c', 'has space', '-flag'])('scope %s is refused', (raw) => {
    expect(() => parsePauseScope(raw)).toThrow(/expected OWNER or OWNER\/REPO/);
  });

  it('the scopes that hold a repository, widest first, and how a pause reads', () => {
    expect(scopesOf('Octo', 'App')).toEqual(['*', 'octo', 'octo/app']);
    expect(describePause({ scope: '*', by: 'ops', reason: 'r', since: 'S', until: null })).toBe(
      'every repository paused by ops since S, until resumed: r',
    );
    expect(describePause({ scope: 'o/r', by: 'ops', reason: 'r', since: 'S', until: 'U' })).toBe(
      'o/r paused by ops since S, until U: r',
    );
  });
});
