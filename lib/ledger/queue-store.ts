import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { keys } from './keys.js';
import { Table } from './table.js';

/** Past the last use of an item, so it carries an expiry like every item (dynalite keeps them anyway). */
const KEEP_SECONDS = 14 * 24 * 60 * 60;

/**
 * The local runtime's queue journal: a table of its own beside reprise's, one item per message
 * holding its latest snapshot. The attributes are the queue's; this class only keys and writes them.
 */
export class QueueStore {
  private readonly table: Table;

  constructor(
    client: DynamoDBClient,
    tableName: string,
    private readonly queue: string,
  ) {
    this.table = new Table(client, tableName);
  }

  /** Every message's attributes, read consistently. */
  async load(): Promise<Record<string, unknown>[]> {
    const items = await this.table.query(keys.queueMessages(this.queue), true);
    return items.map(({ pk: _pk, sk: _sk, ttl: _ttl, ...attrs }) => attrs);
  }

  put(messageId: string, attrs: Record<string, unknown>): Promise<void> {
    return this.table.put({
      ...attrs,
      ...keys.queueMessage(this.queue, messageId),
      ttl: Math.floor(Date.now() / 1000) + KEEP_SECONDS,
    });
  }

  remove(messageId: string): Promise<void> {
    return this.table.delete(keys.queueMessage(this.queue, messageId));
  }
}
