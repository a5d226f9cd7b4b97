/**
 * The local runtime serves the deployed Lambda handlers as API Gateway would: the request as an
 * HTTP API (payload v2) event, routed by `METHOD /path`, the handler's answer written back; no
 * route is 404, a body past the intake's limit is 413 before the handler sees it, and a handler
 * that throws is a 500 that says nothing of why.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { Agent, request } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../lib/http/lambda-http.js';
import { closeServer, type LambdaHttpHandler, serveRoutes } from '../../lib/local/http-server.js';

describe('serveRoutes', () => {
  let server: Server;
  let url: string;
  const seen: APIGatewayProxyEventV2[] = [];
  const errors: unknown[] = [];
  const echo: LambdaHttpHandler = async (event) => {
    seen.push(event);
    return { statusCode: 201, headers: { 'x-route': event.routeKey }, body: JSON.stringify({ ok: true }) };
  };

  beforeAll(async () => {
    ({ server, url } = await serveRoutes(
      {
        'POST /webhook': echo,
        'GET /plain': async () => 'plain text',
        'GET /broken': async () => {
          throw new Error('secret detail');
        },
      },
      0,
      '127.0.0.1',
      (e) => errors.push(e),
    ));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('listens on the host it is given, on the port the system chose for port 0', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(url).port)).toBeGreaterThan(0);
  });

  it('hands the handler an API Gateway v2 event: route key, path, query, headers, the body in base64', async () => {
    const body = JSON.stringify({ action: 'completed', text: 'ünïcode' });
    const res = await fetch(`${url}/webhook?a=1&b=two`, {
      method: 'POST',
      headers: { 'x-github-event': 'workflow_run', 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-route')).toBe('POST /webhook');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ ok: true });

    const event = seen.at(-1)!;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'POST /webhook',
      rawPath: '/webhook',
      rawQueryString: 'a=1&b=two',
      isBase64Encoded: true,
      requestContext: { http: { method: 'POST', path: '/webhook', sourceIp: '127.0.0.1' }, stage: '$default' },
    });
    expect(event.headers['x-github-event']).toBe('workflow_run');
    expect(Buffer.from(event.body!, 'base64').toString('utf8')).toBe(body);
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a handler that answers a string is a 200 with that body', async () => {
    const res = await fetch(`${url}/plain`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('plain text');
  });

  it('a route it does not serve is 404 naming the method and path; the handlers are not called', async () => {
    const before = seen.length;
    for (const [method, path] of [
      ['GET', '/webhook'],
      ['POST', '/nowhere'],
    ] as const) {
      const res = await fetch(`${url}${path}`, { method, ...(method === 'POST' && { body: '{}' }) });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: `no route ${method} ${path}` });
    }
    expect(seen.length).toBe(before);
  });

  it('a handler that throws is a 500 "internal error"; the error goes to onError, not to the client', async () => {
    const res = await fetch(`${url}/broken`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'internal error' });
    expect(text).not.toContain('secret detail');
    expect((errors.at(-1) as Error).message).toBe('secret detail');
  });

  it(`a body declared past ${MAX_BODY_BYTES} bytes is 413 before a byte of it is read, and never reaches the handler`, async () => {
    const before = seen.length;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${url}/webhook`, {
        method: 'POST',
        headers: { 'content-length': String(MAX_BODY_BYTES + 1) },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      // Headers only: the server answers without waiting for the body it will not read.
      req.flushHeaders();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: `payload too large: more than ${MAX_BODY_BYTES} bytes` });
    expect(seen.length).toBe(before);
  });

  it('a body past the limit sent without a declared length (chunked) is 413 too, and never reaches the handler', async () => {
    const before = seen.length;
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const answer = await new Promise<number>((resolve) => {
      const req = request(`${url}/webhook`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      // The server may reset the connection once it has answered: the answer is what counts.
      req.on('error', () => undefined);
      let sent = 0;
      const more = (): void => {
        while (sent <= MAX_BODY_BYTES) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', more);
            return;
          }
        }
        req.end();
      };
      more();
    });
    expect(answer).toBe(413);
    expect(seen.length).toBe(before);
  });
});

describe('closeServer', () => {
  it('resolves once the server is closed, a keep-alive connection closed with it', async () => {
    const { server, url } = await serveRoutes({ 'GET /healthz': async () => 'ok' }, 0, '127.0.0.1', () => undefined);
    const agent = new Agent({ keepAlive: true });
    const status = await new Promise<number | undefined>((resolve, reject) =>
      request(`${url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      })
        .on('error', reject)
        .end(),
    );
    expect(status).toBe(200);
    await closeServer(server);
    expect(server.listening).toBe(false);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    agent.destroy();
  });
});
