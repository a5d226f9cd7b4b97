/**
 * The local page `reprise setup` serves, and the callback GitHub sends the browser back to. Only
 * who reads the terminal learns the page's path (random, per flow); the browser that opens it
 * first gets the flow's cookie, and only that browser is served the page again or its callback.
 * Every request must name the address itself (`Host: 127.0.0.1:PORT`), so a web page whose own
 * domain is rebound to 127.0.0.1 reads nothing.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CliIo, println } from './io.js';
import { resultPage } from './manifest.js';

const FLOW_COOKIE = 'reprise_setup';

export const sameSecret = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The value of cookie `name` in a Cookie header, or ''. */
const cookieValue = (header: string | undefined, name: string): string =>
  (header ?? '')
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1) ?? '';

export const send = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void => {
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The page's address holds the flow's path: it never goes to GitHub in a Referer.
      'referrer-policy': 'no-referrer',
      ...headers,
    })
    .end(html);
};

export interface SetupPage {
  /** `http://127.0.0.1:PORT/<flow>/`; its callback is `${pageUrl}callback`. */
  readonly pageUrl: string;
  /** The page's HTML, once the manifest (which names the callback) is built. */
  setHtml(html: string): void;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port` (0: a free one); `onCallback` gets the callback of the flow's own browser. */
export async function serveSetupPage(
  io: CliIo,
  port: number,
  onCallback: (url: URL, res: ServerResponse) => void,
): Promise<SetupPage> {
  const flowPath = `/${randomBytes(16).toString('hex')}/`;
  const flowCookie = randomBytes(20).toString('hex');
  let opened = false;
  let host = '';
  let html = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.host !== host) {
      return send(res, 421, resultPage('Wrong host', ['This page answers only at the address reprise setup printed.']));
    }
    const url = new URL(req.url ?? '/', `http://${host}`);
    const ours = sameSecret(cookieValue(req.headers.cookie, FLOW_COOKIE), flowCookie);
    if (req.method === 'GET' && url.pathname === flowPath) {
      if (opened && !ours) {
        return send(
          res,
          403,
          resultPage('Opened elsewhere', [
            'This setup page was opened in another browser; finish there, or run reprise setup again.',
          ]),
        );
      }
      opened = true;
      return send(res, 200, html, {
        'set-cookie': `${FLOW_COOKIE}=${flowCookie}; Path=${flowPath}; HttpOnly; SameSite=Lax`,
      });
    }
    if (req.method === 'GET' && url.pathname === `${flowPath}callback`) {
      if (!ours) {
        println(io.stderr, 'Refused a callback from a browser that did not open this setup page.');
        return send(
          res,
          403,
          resultPage('Refused', [
            'This callback did not come from the browser that opened the setup page. Open the page reprise setup printed in that browser, and let GitHub send you back there.',
          ]),
        );
      }
      return onCallback(url, res);
    }
    send(res, 404, resultPage('Not found', ['Open the address reprise setup printed.']));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    pageUrl: `http://${host}${flowPath}`,
    setHtml: (h) => (html = h),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
