import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dynalite from 'dynalite';
import { createTable } from '../ledger/table.js';

/**
 * The embedded DynamoDB listens on a Unix socket in a directory of its own, mode 0700, and on no
 * TCP port: no web page can reach it (a browser speaks TCP only) and no other user can open the
 * socket. dynalite checks no signature, so whoever reaches it reads and writes every item; only
 * this process and the operator's own account can.
 */
export interface EmbeddedDynamo {
  /** The socket's path: only clients made by `localDynamoClient(socketPath)` reach it. */
  readonly socketPath: string;
  readonly client: DynamoDBClient;
  close(): Promise<void>;
  /** An outage to inject: every request fails (connection reset) until restart(); the data is kept. */
  stop(): Promise<void>;
  restart(): Promise<void>;
}

/** An HTTP agent whose every connection goes to the Unix socket at `path`, kept alive between requests. */
class SocketAgent extends Agent {
  constructor(private readonly path: string) {
    super({ keepAlive: true });
  }
  override createConnection = (): Socket => connect(this.path);
}

/**
 * Same credentials-free client shape the local runtime and tests use against dynalite, its
 * requests carried over the socket. The endpoint's host only names the store in errors.
 */
export const localDynamoClient = (
  socketPath: string,
  overrides: Partial<ConstructorParameters<typeof DynamoDBClient>[0]> = {},
): DynamoDBClient =>
  new DynamoDBClient({
    endpoint: 'http://embedded-dynamodb.localhost',
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
    requestHandler: { httpAgent: new SocketAgent(socketPath) },
    ...overrides,
  });

/**
 * dynalite's own request listener behind a guard: what a browser sends (an `Origin` header, or a
 * CORS preflight) is refused before dynalite sees it, and no CORS header is ever answered.
 */
function refuseBrowsers(server: ReturnType<typeof dynalite>): void {
  const own = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.origin !== undefined || req.method !== 'POST') {
      req.resume();
      res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden\n');
      return;
    }
    for (const listener of own) listener(req, res);
  });
}

/** dynalite in memory, or on disk under `path` (LevelDB). */
export async function startDynamo(opts: { path?: string; table: string }): Promise<EmbeddedDynamo> {
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(opts.path && { path: opts.path }),
  });
  refuseBrowsers(server);
  // mkdtemp makes the directory 0700: the socket in it is this account's alone, whatever the umask.
  const dir = mkdtempSync(join(tmpdir(), 'reprise-dynamo-'));
  const socketPath = join(dir, 'dynamodb.sock');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const client = localDynamoClient(socketPath);
  await createTable(client, opts.table);
  // An outage keeps the socket: every connection is reset until restart(). Releasing it instead
  // would let another server take the path, and the client would talk to that one.
  let down = false;
  server.on('connection', (socket) => {
    if (down) socket.destroy();
  });
  return {
    socketPath,
    client,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      rmSync(dir, { recursive: true, force: true });
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
