/**
 * The versioned read-modify-write the retry budget and the pace share, on dynalite: every
 * change lands exactly once however many run at once, and a change that writes nothing writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransientError } from '../../lib/errors.js';
import { keys } from '../../lib/ledger/keys.js';
import { Table } from '../../lib/ledger/table.js';
import {
  MAX_TRIES,
  versioned,
  type VersionedItem,
  VersionedItems,
  versionedItemsOf,
} from '../../lib/ledger/versioned.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';

const TABLE = 'versioned-test';
const TTL = 4_000_000_000;

let dynamo: EmbeddedDynamo;
let table: Table;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
  table = new Table(dynamo.client, TABLE);
});
afterAll(async () => dynamo.close());

interface Counter extends VersionedItem {
  readonly n?: number;
}

/** Adds one to the item's count, answering the count it wrote. */
const addOne = (key: ReturnType<typeof keys.pacing>) =>
  versioned<Counter, number>(
    table,
    key,
    (item) => {
      const n = (item?.n ?? 0) + 1;
      return { result: n, write: { n, ttl: TTL } };
    },
    () => 'counter contended',
  );

describe('versioned: one read-modify-write for every versioned item', () => {
  it('the first write creates the item at version 1', async () => {
    const key = keys.pacing(1001);
    expect(await addOne(key)).toBe(1);
    expect(await table.get(key, true)).toMatchObject({ n: 1, version: 1, ttl: TTL });
  });

  it('changes at once on one item each land exactly once: a lost race reads again', async () => {
    const key = keys.pacing(1002);
    const answers = await Promise.all(Array.from({ length: 12 }, () => addOne(key)));
    expect([...answers].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(await table.get(key, true)).toMatchObject({ n: 12, version: 12 });
  });

  it('a change that answers without attributes writes nothing', async () => {
    const key = keys.pacing(1003);
    await addOne(key);
    const seen = await versioned<Counter, number | undefined>(
      table,
      key,
      (item) => ({ result: item?.n }),
      () => '',
    );
    expect(seen).toBe(1);
    expect(await table.get(key, true)).toMatchObject({ n: 1, version: 1 });
  });

  it(`a write that loses every race, ${MAX_TRIES} times, is a TransientError naming the contention`, async () => {
    const key = keys.pacing(1004);
    await addOne(key);
    let reads = 0;
    // Another writer lands between each read and its write: the condition never holds.
    const raced = Object.create(table) as Table;
    raced.get = async <T>(k: typeof key, consistent: boolean) => {
      reads++;
      const item = await table.get<T>(k, consistent);
      await addOne(key);
      return item;
    };
    const change = versioned<Counter, number>(
      raced,
      key,
      () => ({ result: 0, write: { n: -1, ttl: TTL } }),
      () => 'counter contended',
    );
    await expect(change).rejects.toBeInstanceOf(TransientError);
    await expect(change).rejects.toThrow('counter contended');
    expect(reads).toBe(MAX_TRIES);
    expect(await table.get(key, true)).toMatchObject({ n: MAX_TRIES + 1 });
  });
});

describe('VersionedItems: a process’s own changes of one item go one at a time', () => {
  /** The table, counting its reads. */
  const counted = () => {
    const reads = { n: 0 };
    const t = Object.create(table) as Table;
    t.get = async <T>(k: Parameters<Table['get']>[0], consistent: boolean) => {
      reads.n++;
      return table.get<T>(k, consistent);
    };
    return { t, reads };
  };
  const increment = (item: Counter | undefined) => {
    const n = (item?.n ?? 0) + 1;
    return { result: n, write: { n, ttl: TTL } };
  };

  it('20 changes at once in one process each read once: no race lost, every change landed in order', async () => {
    const { t, reads } = counted();
    const items = new VersionedItems(t);
    const key = keys.pacing(1101);
    const results = await Promise.all(Array.from({ length: 20 }, () => items.change(key, increment, () => 'x')));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(reads.n).toBe(20);
    expect(await table.get(key, true)).toMatchObject({ n: 20, version: 20 });
  });

  it('changes of different items go side by side, and a failed change does not hold the next', async () => {
    const items = new VersionedItems(table);
    const [a, b] = [keys.pacing(1102), keys.pacing(1103)];
    const failing = items.change(
      a,
      () => {
        throw new Error('bad change');
      },
      () => 'x',
    );
    const next = items.change(a, increment, () => 'x');
    const other = items.change(b, increment, () => 'x');
    await expect(failing).rejects.toThrow('bad change');
    expect(await next).toBe(1);
    expect(await other).toBe(1);
  });

  it('one table has one VersionedItems in a process: the stores made from it (the worker’s and the reconciler’s pace) queue together', async () => {
    const { t, reads } = counted();
    expect(versionedItemsOf(t)).toBe(versionedItemsOf(t));
    expect(versionedItemsOf(t)).not.toBe(versionedItemsOf(table));
    const key = keys.pacing(1104);
    const [first, second] = [versionedItemsOf(t), versionedItemsOf(t)];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? first : second).change(key, increment, () => 'x')),
    );
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(reads.n).toBe(10);
  });
});
