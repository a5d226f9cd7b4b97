import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface EmbeddedDynamo {
  readonly endpoint: string;
  readonly client: DynamoDBClient;
  close(): Promise<void>;
  /** An outage to inject: every request fails (connection reset) until restart(); the data is kept. */
  stop(): Promise<void>;
  restart(): Promise<void>;
}

/** Same credentials-free client shape the local runtime and tests use against dynalite. */
export const localDynamoClient = (endpoint: string): DynamoDBClient =>
  new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
  });

/** The table as the CDK stack defines it: `pk`/`sk`, TTL on `ttl` (dynalite ignores TTL). */
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

/** dynalite in memory, or on disk under `path` (LevelDB). */
export async function startDynamo(opts: { path?: string; table: string }): Promise<EmbeddedDynamo> {
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(opts.path && { path: opts.path }),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoClient(endpoint);
  await createTable(client, opts.table);
  // An outage keeps the port: every connection is reset until restart(). Releasing the port
  // instead would let another server take it, and the client would talk to that one.
  let down = false;
  server.on('connection', (socket) => {
    if (down) socket.destroy();
  });
  return {
    endpoint,
    client,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    stop: async () => {
      down = true;
      server.closeAllConnections();
    },
    restart: async () => {
      down = false;
    },
  };
}
