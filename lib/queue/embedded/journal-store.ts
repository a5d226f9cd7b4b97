/**
 * The local runtime's queue journal on disk: a table of its own beside reprise's (so not the
 * ledger's to own), one item per message holding its latest snapshot. The attributes are the
 * queue's; this store only creates the table, keys the items (with the ledger's one naming
 * scheme, lib/ledger/keys.ts) and writes them.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { keys } from '../../ledger/keys.js';
import { createTable, Table } from '../../ledger/table.js';

/** Past the last use of an item, so it carries an expiry like every item (dynalite keeps them anyway). */
const KEEP_SECONDS = 14 * 24 * 60 * 60;

/** The journal's table: created when missing, one item per message under the queue's keys. */
export class JournalStore {
  private readonly table: Table;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly queue: string,
  ) {
    // The ledger's table adapter, on the process's one document client: the journal is a table of its own.
    this.table = new Table(client, tableName);
  }

  /** Creates the table (`pk`/`sk`) when missing, and resolves once it serves requests. */
  createTable(): Promise<void> {
    return createTable(this.client, this.tableName);
  }

  /** Every message's attributes, read consistently. */
  async load(): Promise<Record<string, unknown>[]> {
    const items = await this.table.query(keys.queueMessages(this.queue), true);
    return items.map(({ pk: _pk, sk: _sk, ttl: _ttl, ...attrs }) => attrs);
  }

  async put(messageId: string, attrs: Record<string, unknown>): Promise<void> {
    await this.table.put({
      ...attrs,
      ...keys.queueMessage(this.queue, messageId),
      ttl: Math.floor(Date.now() / 1000) + KEEP_SECONDS,
    });
  }

  async remove(messageId: string): Promise<void> {
    await this.table.delete(keys.queueMessage(this.queue, messageId));
  }
}
