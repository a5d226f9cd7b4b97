import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lib/ledger/keys.js';
import { Table } from '../../lib/ledger/table.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';

const TABLE = 'table-test';
let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo.close());

const ttl = 4_102_444_800;

describe('the conditional-write helper', () => {
  it('answers true when the condition holds and false when DynamoDB refuses it, for put, update and delete', async () => {
    const table = new Table(dynamo.client, TABLE);
    const key = keys.redelivery('cond-1');
    const item = { ...key, ttl };
    const absent = { expression: 'attribute_not_exists(#pk)' };
    expect(await table.putIf(item, absent)).toBe(true);
    expect(await table.putIf(item, absent)).toBe(false);

    const once = { expression: 'attribute_not_exists(#outcome)' };
    expect(await table.updateIf(key, 'SET #outcome = :o', { ':o': 'first' }, once)).toBe(true);
    expect(await table.updateIf(key, 'SET #outcome = :o', { ':o': 'second' }, once)).toBe(false);
    expect(await table.get(key, true)).toMatchObject({ outcome: 'first' });

    const second = { expression: '#outcome = :o', values: { ':o': 'second' } };
    expect(await table.deleteIf(key, second)).toBe(false);
    expect(await table.deleteIf(key, { expression: '#outcome = :o', values: { ':o': 'first' } })).toBe(true);
    expect(await table.get(key, true)).toBeUndefined();
  });

  it('rethrows any other fault', async () => {
    const missing = new Table(dynamo.client, 'no-such-table');
    await expect(
      missing.putIf({ ...keys.redelivery('x'), ttl }, { expression: 'attribute_not_exists(#pk)' }),
    ).rejects.toThrow(/non-existent table|not found/i);
  });

  it('refuses an update whose condition gives one of its placeholders another value, before sending it', async () => {
    const table = new Table(dynamo.client, TABLE);
    const key = keys.redelivery('shadowed');
    await table.putIf({ ...key, ttl, outcome: 'a' }, { expression: 'attribute_not_exists(#pk)' });
    const held = { expression: '#outcome = :o', values: { ':o': 'a' } };
    await expect(table.updateIf(key, 'SET #outcome = :o', { ':o': 'b' }, held)).rejects.toThrow(/:o two values/);
    expect(await table.updateIf(key, 'SET #outcome = :n', { ':n': 'b' }, held)).toBe(true);
  });

  it('refuses an expression that names an attribute the table does not define, before sending it', async () => {
    const table = new Table(dynamo.client, TABLE);
    await expect(
      table.putIf({ ...keys.redelivery('typo'), ttl }, { expression: 'attribute_not_exists(#pkk)' }),
    ).rejects.toThrow(/unknown attribute: #pkk/);
  });
});
