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

/** Compares two secrets in constant time: a wrong cookie takes as long to refuse as a near miss. */
export const sameSecret = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The value of cookie `name` in a Cookie header, or ''. */
const cookieValue = (header: string | undefined, name: string): string =>
  (header ?? '')
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1) ?? '';

/** Answers with an HTML page that is never cached and never sends its address on as a Referer. */
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

/** The running setup page: its address, the HTML it serves once the manifest is built, and its shutdown. */
export interface SetupPage {
  /** `http://127.0.0.1:PORT/<flow>/`; its callback is `${pageUrl}callback`. */
  readonly pageUrl: string;
  /** The page's HTML, once the manifest (which names the callback) is built. */
  setHtml(html: string): void;
  close(): Promise<void>;
}

/** One setup flow's secrets and state: its random path and cookie, the page, and where it listens. */
interface Flow {
  readonly path: string;
  readonly cookie: string;
  opened: boolean;
  host: string;
  html: string;
}

/** The page itself: served to the first browser that opens it, and again only to that browser. */
function servePage(flow: Flow, ours: boolean, res: ServerResponse): void {
  if (flow.opened && !ours) {
    return send(
      res,
      403,
      resultPage('Opened elsewhere', [
        'This setup page was opened in another browser; finish there, or run reprise setup again.',
      ]),
    );
  }
  flow.opened = true;
  send(res, 200, flow.html, {
    'set-cookie': `${FLOW_COOKIE}=${flow.cookie}; Path=${flow.path}; HttpOnly; SameSite=Lax`,
  });
}

/** GitHub's callback, taken only from the browser that opened the page. */
function serveCallback(
  io: CliIo,
  ours: boolean,
  url: URL,
  res: ServerResponse,
  onCallback: (url: URL, res: ServerResponse) => void,
): void {
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
  onCallback(url, res);
}

/** Routes one request of the flow: the host checked first, then the page, its callback, or 404. */
function flowRequests(
  flow: Flow,
  io: CliIo,
  onCallback: (url: URL, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.headers.host !== flow.host) {
      return send(res, 421, resultPage('Wrong host', ['This page answers only at the address reprise setup printed.']));
    }
    const url = new URL(req.url ?? '/', `http://${flow.host}`);
    const ours = sameSecret(cookieValue(req.headers.cookie, FLOW_COOKIE), flow.cookie);
    if (req.method === 'GET' && url.pathname === flow.path) return servePage(flow, ours, res);
    if (req.method === 'GET' && url.pathname === `${flow.path}callback`) {
      return serveCallback(io, ours, url, res, onCallback);
    }
    send(res, 404, resultPage('Not found', ['Open the address reprise setup printed.']));
  };
}

/** Listens on 127.0.0.1:`port` (0: a free one); `onCallback` gets the callback of the flow's own browser. */
export async function serveSetupPage(
  io: CliIo,
  port: number,
  onCallback: (url: URL, res: ServerResponse) => void,
): Promise<SetupPage> {
  const flow: Flow = {
    path: `/${randomBytes(16).toString('hex')}/`,
    cookie: randomBytes(20).toString('hex'),
    opened: false,
    host: '',
    html: '',
  };
  const server = createServer(flowRequests(flow, io, onCallback));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  flow.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    pageUrl: `http://${flow.host}${flow.path}`,
    setHtml: (h) => (flow.html = h),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
