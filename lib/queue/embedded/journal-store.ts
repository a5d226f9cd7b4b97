/**
 * The local runtime's queue journal on disk: a table of its own beside reprise's (so not the
 * ledger's to own), one item per message holding its latest snapshot. The attributes are the
 * queue's; this store only creates the table, keys the items (with the ledger's one naming
 * scheme, lib/ledger/keys.ts) and writes them.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, paginateQuery, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClientOf } from '../../ledger/table.js';
import { keys } from '../../ledger/keys.js';

/** Past the last use of an item, so it carries an expiry like every item (dynalite keeps them anyway). */
const KEEP_SECONDS = 14 * 24 * 60 * 60;

/** How often, and how far apart, a new table is asked whether it serves requests yet. */
const ACTIVE_CHECKS = 100;
const ACTIVE_CHECK_MS = 10;

export class JournalStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly queue: string,
  ) {
    // The ledger's document client: one per process, though the journal is a table of its own.
    this.doc = documentClientOf(client);
  }

  /** Creates the table (`pk`/`sk`) when missing, and resolves once it serves requests. */
  async createTable(): Promise<void> {
    try {
      await this.client.send(
        new CreateTableCommand({
          TableName: this.tableName,
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'S' },
          ],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
    }
    // dynalite answers CreateTable while the table is still CREATING.
    for (let i = 0; i < ACTIVE_CHECKS; i++) {
      const { Table } = await this.client.send(new DescribeTableCommand({ TableName: this.tableName }));
      if (Table?.TableStatus === 'ACTIVE') return;
      await new Promise((resolve) => setTimeout(resolve, ACTIVE_CHECK_MS));
    }
    throw new Error(`queue journal table ${this.tableName} did not become ACTIVE`);
  }

  /** Every message's attributes, read consistently. */
  async load(): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    const pages = paginateQuery(
      { client: this.doc },
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.queueMessages(this.queue).pk },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const { pk: _pk, sk: _sk, ttl: _ttl, ...attrs } of page.Items ?? []) out.push(attrs);
    }
    return out;
  }

  async put(messageId: string, attrs: Record<string, unknown>): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...attrs,
          ...keys.queueMessage(this.queue, messageId),
          ttl: Math.floor(Date.now() / 1000) + KEEP_SECONDS,
        },
      }),
    );
  }

  async remove(messageId: string): Promise<void> {
    await this.doc.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.queueMessage(this.queue, messageId) }),
    );
  }
}
