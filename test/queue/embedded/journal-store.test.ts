/** The queue journal's own table on dynalite: created once, one item per message, keyed per queue. */
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedDynamo, startDynamo } from '../../../lib/local/dynamo.js';
import { JournalStore } from '../../../lib/queue/embedded/journal-store.js';

const TABLE = 'journal-store-test';
let dynamo: EmbeddedDynamo;

beforeAll(async () => {
  dynamo = await startDynamo({ table: 'reprise' });
  await new JournalStore(dynamo.client, TABLE, 'setup').createTable();
});
afterAll(async () => {
  await dynamo.close();
});

describe('JournalStore', () => {
  it('creates its table beside the ledger, and a second create finds it there', async () => {
    await new JournalStore(dynamo.client, TABLE, 'again').createTable();
    const { TableNames } = await dynamo.client.send(new ListTablesCommand({}));
    expect(TableNames).toEqual(expect.arrayContaining(['reprise', TABLE]));
  });

  it('writes one item per message under the keys earlier versions wrote, with an expiry', async () => {
    const store = new JournalStore(dynamo.client, TABLE, 'keys.fifo');
    const before = Math.floor(Date.now() / 1000);
    await store.put('m1', { body: 'x', receiveCount: 2 });
    const { Item } = await dynamo.client.send(
      new GetCommand({ TableName: TABLE, Key: { pk: 'QUEUE#keys.fifo', sk: 'MSG#m1' } }),
    );
    expect(Item).toMatchObject({ body: 'x', receiveCount: 2 });
    expect(Item!.ttl).toBeGreaterThanOrEqual(before + 14 * 24 * 3600);
  });

  it('loads its own messages without their keys or expiry, and forgets a removed one', async () => {
    const store = new JournalStore(dynamo.client, TABLE, 'load.fifo');
    const other = new JournalStore(dynamo.client, TABLE, 'other.fifo');
    await store.put('a', { messageId: 'a', order: 1 });
    await store.put('b', { messageId: 'b', order: 2, note: undefined });
    await other.put('c', { messageId: 'c', order: 3 });
    expect(await store.load()).toEqual([
      { messageId: 'a', order: 1 },
      { messageId: 'b', order: 2 },
    ]);
    await store.remove('a');
    expect(await store.load()).toEqual([{ messageId: 'b', order: 2 }]);
  });
});
