import { setTimeout as sleep } from 'node:timers/promises';
import { TransientError } from '../errors.js';
import { KeyedQueue } from '../util/keyed-queue.js';
import type { Key } from './keys.js';
import type { Table } from './table.js';

/** An item written only through `versioned`: its version counts the writes. */
export interface VersionedItem {
  readonly version?: number;
}

/** What a change answers: its result, and the item's new attributes (with its expiry), or none to write nothing. */
export interface Change<R> {
  readonly result: R;
  readonly write?: { readonly ttl: number } & Record<string, unknown>;
}

/** Concurrent changes of one item retry the conditional write; this many tries at most. */
export const MAX_TRIES = 40;

/**
 * A read-modify-write of one item, exact however many processes change it at once: reads it
 * (consistently), lets `change` answer from what it read, and writes the new attributes back
 * on condition that nobody wrote in between (a single-item conditional write on the version, so
 * the local table runs the same code). A lost race reads again after a short random pause;
 * after `MAX_TRIES` lost races a TransientError saying `contended` is thrown.
 */
export async function versioned<T extends VersionedItem, R>(
  table: Table,
  key: Key,
  change: (item: T | undefined) => Change<R>,
  contended: () => string,
): Promise<R> {
  for (let tries = 1; tries <= MAX_TRIES; tries++) {
    const item = await table.get<T>(key, true);
    const { result, write } = change(item);
    if (!write) return result;
    const written = await table.putIf(
      { ...write, ...key, version: (item?.version ?? 0) + 1 },
      item
        ? { expression: '#version = :seen', values: { ':seen': item.version ?? 0 } }
        : { expression: 'attribute_not_exists(#pk)' },
    );
    if (written) return result;
    await sleep(Math.floor(Math.random() * 5 * Math.min(tries, 8)));
  }
  throw new TransientError(contended());
}

/**
 * The versioned items of one table as one process changes them: `versioned`, with the process's
 * own changes of one item one at a time. Side by side they would only race for the same item,
 * each lost race a read and a write more (a wave's decisions in one process are many at once);
 * other processes still meet at the conditional write.
 */
export class VersionedItems {
  private readonly inProcess = new KeyedQueue<string>();

  constructor(private readonly table: Table) {}

  change<T extends VersionedItem, R>(
    key: Key,
    change: (item: T | undefined) => Change<R>,
    contended: () => string,
  ): Promise<R> {
    return this.inProcess.run(`${key.pk}\n${key.sk}`, () => versioned(this.table, key, change, contended));
  }
}

const perTable = new WeakMap<Table, VersionedItems>();

/** The one `VersionedItems` of a table in this process, shared by every store that changes its versioned items. */
export function versionedItemsOf(table: Table): VersionedItems {
  let items = perTable.get(table);
  if (!items) {
    items = new VersionedItems(table);
    perTable.set(table, items);
  }
  return items;
}
