/**
 * The embedded DynamoDB on its Unix socket: the directory is the account's alone, and what a
 * browser would send is refused even there, with no CORS header; the SDK client made for the
 * socket works, and nothing is left behind once it closes.
 */
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { existsSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';

const overSocket = (socketPath: string, method: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ socketPath, method, path: '/', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });

describe('the embedded DynamoDB listens on a private Unix socket', () => {
  let dynamo: EmbeddedDynamo;
  beforeAll(async () => {
    dynamo = await startDynamo({ table: 'socket-test' });
  });
  afterAll(async () => dynamo.close());

  it('its directory is mode 0700 and the SDK client made for it lists the table', async () => {
    expect((statSync(dirname(dynamo.socketPath)).mode & 0o777).toString(8)).toBe('700');
    expect((await dynamo.client.send(new ListTablesCommand({}))).TableNames).toEqual(['socket-test']);
  });

  it('a request carrying an Origin header, and a CORS preflight, are refused with 403 and no CORS header', async () => {
    const target = {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.ListTables',
      'x-amz-date': '20260101T000000Z',
      authorization: `AWS4-HMAC-SHA256 Credential=any/20260101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}`,
    };
    const answers = [
      await overSocket(dynamo.socketPath, 'POST', { ...target, origin: 'https://evil.example' }),
      await overSocket(dynamo.socketPath, 'OPTIONS', {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-amz-target,authorization',
      }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(403);
      expect(a.headers['access-control-allow-origin']).toBeUndefined();
      expect(a.body).not.toContain('TableNames');
    }
    // Control: the same call without Origin is answered by dynalite, which checks no signature.
    expect((await overSocket(dynamo.socketPath, 'POST', target)).body).toContain('socket-test');
  });

  it('close() removes the socket and its directory', async () => {
    const other = await startDynamo({ table: 'socket-gone' });
    const dir = dirname(other.socketPath);
    expect(existsSync(other.socketPath)).toBe(true);
    await other.close();
    expect(existsSync(dir)).toBe(false);
  });
});
