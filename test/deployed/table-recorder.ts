/**
 * A recording proxy in front of moto's DynamoDB, one per function: each request a function's
 * bundle sends to the table is forwarded unchanged and recorded with the action and the partition
 * keys it names, so the test can judge every one against that function's policy (moto does not
 * evaluate IAM conditions such as `dynamodb:LeadingKeys`).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TableCall {
  /** `dynamodb:PutItem`, … */
  readonly action: string;
  readonly table: string;
  /** The partition keys the request names; absent for a Scan. */
  readonly leadingKeys?: string[];
}

type Attr = { S?: string };
interface Body {
  TableName?: string;
  Key?: { pk?: Attr };
  Item?: { pk?: Attr };
  KeyConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, Attr>;
}

/** The partition key of a Query: the value its key condition sets the `pk` attribute equal to. */
function queryKey(b: Body): string {
  for (const [, name, value] of (b.KeyConditionExpression ?? '').matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const attr = name!.startsWith('#') ? b.ExpressionAttributeNames?.[name!] : name;
    if (attr === 'pk') {
      const v = b.ExpressionAttributeValues?.[value!]?.S;
      if (v !== undefined) return v;
    }
  }
  throw new Error(`a Query whose key condition names no pk: ${b.KeyConditionExpression}`);
}

/** What a DynamoDB request names, or an error for a request the test does not know how to judge. */
export function tableCall(target: string, b: Body): TableCall {
  const op = target.split('.').pop() ?? '';
  const action = `dynamodb:${op}`;
  const table = b.TableName ?? '';
  switch (op) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return { action, table, leadingKeys: [b.Key?.pk?.S ?? ''] };
    case 'PutItem':
      return { action, table, leadingKeys: [b.Item?.pk?.S ?? ''] };
    case 'Query':
      return { action, table, leadingKeys: [queryKey(b)] };
    case 'Scan':
      return { action, table };
    default:
      // Batch and transaction requests name many keys: recorded without any, so no policy allows them here.
      return { action, table, leadingKeys: [] };
  }
}

export interface TableRecorder {
  readonly url: string;
  readonly calls: TableCall[];
  close(): Promise<void>;
}

export async function startTableRecorder(upstream: string): Promise<TableRecorder> {
  const calls: TableCall[] = [];
  const target = new URL(upstream);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const amzTarget = String(req.headers['x-amz-target'] ?? '');
      if (amzTarget.startsWith('DynamoDB_')) calls.push(tableCall(amzTarget, JSON.parse(body.toString() || '{}')));
      const out = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.on('error', (err) => {
        res.writeHead(502);
        res.end(String(err));
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
