/**
 * A GitHub that gets every re-run POST twice: a proxy in front of the simulator that forwards
 * each request and sends each re-run POST again once the first is answered (the caller sees
 * the first answer). Control tests put reprise behind it to show a re-run counter can fail.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const RERUN_POST = /\/actions\/(runs\/\d+\/(rerun-failed-jobs|rerun)|jobs\/\d+\/rerun)$/;

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}

export interface DoublingProxy {
  readonly url: string;
  /** Re-run POSTs sent a second time. */
  readonly doubled: number;
  close(): Promise<void>;
}

export async function startDoublingProxy(targetUrl: string): Promise<DoublingProxy> {
  const target = new URL(targetUrl);
  let doubled = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const first = await forward(target, req, body);
    const path = new URL(req.url ?? '/', 'http://proxy.invalid').pathname;
    if (req.method === 'POST' && RERUN_POST.test(path)) {
      doubled++;
      await forward(target, req, body);
    }
    const headers = { ...first.headers };
    delete headers['transfer-encoding'];
    delete headers.connection;
    res.writeHead(first.status, headers).end(first.body);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get doubled() {
      return doubled;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
