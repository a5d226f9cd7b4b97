import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ATTR, type AttributeName } from './attributes.js';
import type { Key, KeyRange } from './keys.js';

/** An item as written: its key, its expiry, its attributes. */
export type Item = Key & { readonly ttl: number } & Record<string, unknown>;

/** A condition or filter: `#name` for attributes, `:name` for `values`. */
export interface Expression {
  readonly expression: string;
  readonly values?: Record<string, unknown>;
}

/** Where a paged Scan resumes. */
export type ScanStart = Record<string, unknown>;

/** The one expected refusal: DynamoDB did not write because the condition did not hold. */
const conditionRefused = (err: unknown): boolean =>
  err instanceof ConditionalCheckFailedException || (err as Error)?.name === 'ConditionalCheckFailedException';

/** Resolves false when DynamoDB refuses the write's condition; any other fault is thrown. */
async function conditional(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (err) {
    if (conditionRefused(err)) return false;
    throw err;
  }
}

/** `ExpressionAttributeNames` for every `#name` in the expressions, each resolved through `ATTR`. */
function namesIn(...expressions: (string | undefined)[]): Record<string, string> | undefined {
  const names: Record<string, string> = {};
  for (const [, name] of expressions.join(' ').matchAll(/#(\w+)/g)) {
    if (!Object.hasOwn(ATTR, name!)) throw new Error(`table expression names an unknown attribute: #${name}`);
    names[`#${name}`] = ATTR[name as AttributeName];
  }
  return Object.keys(names).length > 0 ? names : undefined;
}

/**
 * `ExpressionAttributeValues` of an update and its condition. A placeholder both give must mean
 * the same value: otherwise one would silently replace the other.
 */
function valuesOf(...parts: (Record<string, unknown> | undefined)[]): Record<string, unknown> | undefined {
  const values: Record<string, unknown> = {};
  for (const [name, value] of parts.flatMap((p) => Object.entries(p ?? {}))) {
    if (Object.hasOwn(values, name) && JSON.stringify(values[name]) !== JSON.stringify(value)) {
      throw new Error(`table expression gives ${name} two values`);
    }
    values[name] = value;
  }
  return Object.keys(values).length > 0 ? values : undefined;
}

function keyCondition(range: KeyRange): Expression {
  const pk = { ':pk': range.pk };
  if (!range.sk) return { expression: '#pk = :pk', values: pk };
  if ('after' in range.sk)
    return { expression: '#pk = :pk AND #sk > :after', values: { ...pk, ':after': range.sk.after } };
  const [from, to] = range.sk.between;
  return { expression: '#pk = :pk AND #sk BETWEEN :from AND :to', values: { ...pk, ':from': from, ':to': to } };
}

/**
 * Creates a table as the CDK stack defines reprise's (`pk`/`sk`, TTL on `ttl`, which dynalite
 * ignores) when it is missing: the local runtime's ledger and its queue journal.
 */
export async function createTable(client: DynamoDBClient, table: string): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table,
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
  // dynalite answers CreateTable while the table is still CREATING; wait until it serves requests.
  for (let i = 0; i < 100; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`table ${table} did not become ACTIVE`);
}

const documentClients = new WeakMap<DynamoDBClient, DynamoDBDocumentClient>();

/**
 * The process's one document client over `client`: every store of the ledger, however often it
 * is opened, and the local runtime's queue journal send through it.
 */
export function documentClientOf(client: DynamoDBClient): DynamoDBDocumentClient {
  let doc = documentClients.get(client);
  if (!doc) {
    doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    documentClients.set(client, doc);
  }
  return doc;
}

/**
 * Reprise's single table, and the only code that sends it commands, through the process's one
 * document client. Every write is a single item (dynalite, the local table, has no
 * transactions); a conditional write answers false when its condition did not hold.
 */
export class Table {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly name: string,
  ) {
    this.doc = documentClientOf(client);
  }

  async get<T = Record<string, unknown>>(key: Key, consistent: boolean): Promise<T | undefined> {
    const out = await this.doc.send(new GetCommand({ TableName: this.name, Key: key, ConsistentRead: consistent }));
    return out.Item as T | undefined;
  }

  async put(item: Item): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.name, Item: item }));
  }

  async putIf(item: Item, condition: Expression): Promise<boolean> {
    return conditional(
      this.doc.send(
        new PutCommand({
          TableName: this.name,
          Item: item,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: namesIn(condition.expression),
          ExpressionAttributeValues: valuesOf(condition.values),
        }),
      ),
    );
  }

  /** `update` is a `SET …` expression; its `:values` go in `values`. */
  async updateIf(key: Key, update: string, values: Record<string, unknown>, condition: Expression): Promise<boolean> {
    return conditional(
      this.doc.send(
        new UpdateCommand({
          TableName: this.name,
          Key: key,
          UpdateExpression: update,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: namesIn(update, condition.expression),
          ExpressionAttributeValues: valuesOf(values, condition.values),
        }),
      ),
    );
  }

  async delete(key: Key): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.name, Key: key }));
  }

  async deleteIf(key: Key, condition: Expression): Promise<boolean> {
    return conditional(
      this.doc.send(
        new DeleteCommand({
          TableName: this.name,
          Key: key,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: namesIn(condition.expression),
          ExpressionAttributeValues: valuesOf(condition.values),
        }),
      ),
    );
  }

  /** Every item of a key range, all pages. */
  async query<T = Record<string, unknown>>(range: KeyRange, consistent = false): Promise<T[]> {
    const out: T[] = [];
    await this.pages(range, consistent, false, (page) => out.push(...((page.Items ?? []) as T[])));
    return out;
  }

  /** How many items a key range holds, all pages, without reading them. */
  async count(range: KeyRange, consistent = false): Promise<number> {
    let n = 0;
    await this.pages(range, consistent, true, (page) => (n += page.Count ?? 0));
    return n;
  }

  /** The first `limit` items of a key range, in sort-key order: one bounded read. */
  async queryFirst<T = Record<string, unknown>>(range: KeyRange, limit: number, consistent = false): Promise<T[]> {
    const cond = keyCondition(range);
    const page = await this.doc.send(
      new QueryCommand({
        TableName: this.name,
        KeyConditionExpression: cond.expression,
        ExpressionAttributeNames: namesIn(cond.expression),
        ExpressionAttributeValues: valuesOf(cond.values),
        ConsistentRead: consistent,
        Limit: limit,
      }),
    );
    return (page.Items ?? []) as T[];
  }

  /** One page of a filtered Scan. `limit` bounds the items read, not the matches. */
  async scanPage<T = Record<string, unknown>>(
    filter: Expression,
    start: ScanStart | undefined,
    limit?: number,
  ): Promise<{ items: T[]; next: ScanStart | undefined }> {
    const page = await this.doc.send(
      new ScanCommand({
        TableName: this.name,
        ...(limit !== undefined && { Limit: limit }),
        ExclusiveStartKey: start,
        FilterExpression: filter.expression,
        ExpressionAttributeNames: namesIn(filter.expression),
        ExpressionAttributeValues: valuesOf(filter.values),
      }),
    );
    return { items: (page.Items ?? []) as T[], next: page.LastEvaluatedKey };
  }

  private async pages(
    range: KeyRange,
    consistent: boolean,
    countOnly: boolean,
    each: (page: { Items?: Record<string, unknown>[]; Count?: number }) => void,
  ): Promise<void> {
    const cond = keyCondition(range);
    let start: ScanStart | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.name,
          KeyConditionExpression: cond.expression,
          ExpressionAttributeNames: namesIn(cond.expression),
          ExpressionAttributeValues: valuesOf(cond.values),
          ...(countOnly && { Select: 'COUNT' }),
          ConsistentRead: consistent,
          ExclusiveStartKey: start,
        }),
      );
      each(page);
      start = page.LastEvaluatedKey;
    } while (start);
  }
}
