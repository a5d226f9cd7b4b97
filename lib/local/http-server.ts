import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_BODY_BYTES } from '../http/lambda-http.js';

/** A deployed function's HTTP handler, as API Gateway (HTTP API, payload v2) invokes it. */
export type LambdaHttpHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyResultV2>;

/**
 * The body, or `undefined` once it passes `limit`: reading stops there (a declared length past
 * it is refused before a byte is read), so an oversized body is never buffered nor read on.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', reject);
      req.pause();
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        stop();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/** How long a refused client has to read its 413 before its connection is reset. */
const OVERSIZED_CLOSE_GRACE_MS = 10_000;

/**
 * The answer to a body past the limit: 413, and the connection closed instead of reading the
 * rest. Written on the socket itself: Node's server destroys a `connection: close` socket as
 * soon as its answer is flushed, and destroying it with the client's bytes unread resets it,
 * which makes a client still sending lose the answer it had received. Here the socket is
 * half-closed and kept for a grace, unread, so the client reads the 413 however loaded its
 * machine; the rest of the body is never read.
 */
function refuseOversized(req: IncomingMessage, limit: number): void {
  const body = JSON.stringify({ error: `payload too large: more than ${limit} bytes` });
  const socket = req.socket;
  socket.end(
    `HTTP/1.1 413 ${STATUS_CODES[413]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), OVERSIZED_CLOSE_GRACE_MS).unref();
}

/** The API Gateway HTTP API (payload v2) event the deployed functions receive. */
export function toApiGatewayEvent(req: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: `${req.method} ${url.pathname}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: `${req.method} ${url.pathname}`,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
}

/** Handlers by route key, `METHOD /path`, as API Gateway routes them. */
export interface Routes {
  readonly [route: string]: LambdaHttpHandler;
}

/** Serves Lambda HTTP handlers by route key (`POST /webhook`), as API Gateway would. */
export async function serveRoutes(
  routes: Routes,
  port: number,
  host: string,
  onError: (e: unknown) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://local').pathname;
      const handler = routes[`${req.method} ${path}`];
      if (!handler) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: `no route ${req.method} ${path}` }));
        return;
      }
      const body = await readBody(req, MAX_BODY_BYTES);
      if (body === undefined) {
        refuseOversized(req, MAX_BODY_BYTES);
        return;
      }
      const result = await handler(toApiGatewayEvent(req, body));
      const r = typeof result === 'string' ? { statusCode: 200, body: result } : result;
      res.writeHead(r.statusCode ?? 200, {
        'content-type': 'application/json',
        ...(r.headers as Record<string, string>),
      });
      res.end(r.body ?? '');
    })().catch((err: unknown) => {
      onError(err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'internal error' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const addr = server.address() as AddressInfo;
  return { server, url: `http://${host}:${addr.port}` };
}

/** Stops a server, its open connections (keep-alive) closed too, so nothing answers once it resolves. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
