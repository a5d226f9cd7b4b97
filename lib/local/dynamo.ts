import { CreateTableCommand, DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface EmbeddedDynamo {
  readonly endpoint: string;
  readonly client: DynamoDBClient;
  close(): Promise<void>;
  /** Stops serving requests (a fault to inject) and starts again on the same port. */
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
}

/** dynalite in memory, or on disk under `path` (LevelDB). */
export async function startDynamo(opts: { path?: string; table: string }): Promise<EmbeddedDynamo> {
  let server = dynalite({
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
  const closeServer = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    endpoint,
    client,
    close: async () => {
      client.destroy();
      await closeServer();
    },
    stop: closeServer,
    restart: async () => {
      // In memory, a restart keeps the data only with a path; tests that restart use one.
      server = dynalite({ createTableMs: 0, ...(opts.path && { path: opts.path }) });
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      await createTable(client, opts.table);
    },
  };
}
