import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticate, decodeJwt } from './auth.js';
import { fail, matchTemplate, type Route, type SimContext, type SimRequest, type SimResponse } from './http.js';
import type { ContentLimit } from './content-limit.js';
import type { SimModel } from './model.js';
import { PRIMARY_MESSAGE, rateLimitHeaders } from './rate-limits.js';
import { answerRerunRequest, receiveRerunRequest } from './rerun-requests.js';
import type { SimFault, SimRequester, SimRequestRecord } from './types.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Bad credentials',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  422: 'Validation Failed',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Server Error',
  503: 'Service Unavailable',
  504: 'We couldn\u2019t respond to your request in time. Sorry about that.',
};

interface Bucket {
  limit: number;
  used: number;
  reset: number;
}

/** Transport around the model: routing, auth, latency, faults, rate-limit headers and the request log. */
export class SimServer {
  readonly requests: SimRequestRecord[] = [];
  latencyMs: number;
  /** How the latency passes: on the wall clock unless a test gives its own clock's wait. */
  latencyWait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms));
  logBytesServed = 0;
  onRedeliver: ((d: { guid: string; event: string; action: string | null }) => number | Promise<number>) | null = null;
  /** GitHub's secondary limit on content-generating requests, when the simulator was given one. */
  contentLimit: ContentLimit | null = null;
  private faults: SimFault[] = [];
  private faultSeed = 1;
  /** Requests seen so far per rate fault, method and path. */
  private readonly draws = new Map<string, number>();
  private readonly buckets: Record<'core' | 'graphql', Bucket>;
  private readonly signingKey = randomBytes(16);
  private readonly http: Server;
  private port = 0;
  private readonly ctx: SimContext;

  constructor(
    private readonly model: SimModel,
    private readonly routes: readonly Route[],
    opts: { latencyMs?: number; logHost?: string },
  ) {
    this.latencyMs = opts.latencyMs ?? 0;
    const reset = Math.floor(Date.now() / 1000) + 3600;
    this.buckets = { core: { limit: 5000, used: 0, reset }, graphql: { limit: 5000, used: 0, reset } };
    this.http = createServer((req, res) => void this.handle(req, res));
    this.http.keepAliveTimeout = 1000;
    const logHost = opts.logHost ?? '127.0.0.1';
    this.ctx = {
      model,
      api: '',
      logUrl: (jobId) => {
        const exp = String(Math.floor(Date.now() / 1000) + 60);
        return `http://${logHost}:${this.port}/_logs/${jobId}?sig=${this.sign(jobId, exp)}&exp=${exp}`;
      },
      checkLogSignature: (jobId, sig, exp) => {
        const want = Buffer.from(this.sign(jobId, exp));
        const got = Buffer.from(sig);
        return got.length === want.length && timingSafeEqual(got, want) && Number(exp) * 1000 >= Date.now();
      },
      countLogBytes: (n) => (this.logBytesServed += n),
      rateLimits: () => {
        const out: Record<string, { limit: number; remaining: number; reset: number; used: number }> = {};
        for (const [k, b] of Object.entries(this.buckets)) out[k] = { ...b, remaining: Math.max(0, b.limit - b.used) };
        return out;
      },
      redeliver: async (d) => (this.onRedeliver ? await this.onRedeliver(d) : 200),
    };
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.http.address() as AddressInfo).port;
    this.ctx.api = this.url;
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  injectFault(f: SimFault): void {
    this.faults.push({ ...f });
  }

  clearFaults(): void {
    this.faults = [];
    this.draws.clear();
  }

  /** Seeds the draws of rate faults; each method and path counts its requests from zero again. */
  seedFaults(seed: number): void {
    this.faultSeed = seed;
    this.draws.clear();
  }

  /**
   * The draw of a rate fault for the n-th request of one method and path: a hash of the seed,
   * the fault, the method and path, and n. Concurrent requests to other paths do not move it,
   * so a seeded run places its faults on the same requests every time, whatever the order in
   * which a busy machine lets them arrive.
   */
  private faultDraw(fault: number, method: string, path: string): number {
    const key = `${fault} ${method} ${path}`;
    const n = (this.draws.get(key) ?? 0) + 1;
    this.draws.set(key, n);
    return createHash('sha256').update(`${this.faultSeed}:${key}#${n}`).digest().readUInt32BE(0) / 2 ** 32;
  }

  setRateLimit(resource: 'core' | 'graphql', limit: number, used = 0): void {
    Object.assign(this.buckets[resource], { limit, used });
  }

  /** Content-creating requests (re-runs) past this limit are refused; null turns the limit off. */

  /** The answer once a bucket is spent: GraphQL says so in a 200, REST in a 403. */
  private spent(resource: 'core' | 'graphql', docs: string): SimResponse {
    if (resource === 'graphql') {
      return { status: 200, body: { errors: [{ type: 'RATE_LIMITED', message: PRIMARY_MESSAGE }] } };
    }
    return fail(403, PRIMARY_MESSAGE, docs);
  }

  private sign(jobId: number, exp: string): string {
    return createHmac('sha256', this.signingKey).update(`${jobId}:${exp}`).digest('hex').slice(0, 32);
  }

  private takeFault(method: string, path: string): SimFault | null {
    for (const [i, f] of this.faults.entries()) {
      if (f.method && f.method.toUpperCase() !== method) continue;
      if (!f.path.test(path)) continue;
      if (f.times !== undefined && f.times <= 0) continue;
      if (f.after !== undefined && f.after > 0) {
        f.after--;
        continue;
      }
      if (f.rate !== undefined && this.faultDraw(i, method, path) >= f.rate) continue;
      if (f.times !== undefined) f.times--;
      return f;
    }
    return null;
  }

  private faultResponse(f: SimFault): SimResponse {
    const message = f.message ?? STATUS_TEXT[f.status] ?? 'Error';
    // Only the headers the fault names: a rate limit may come with the message alone.
    const headers: Record<string, string> = {
      ...(f.retryAfter !== undefined && rateLimitHeaders('retry-after', f.retryAfter)),
      ...(f.resetAfter !== undefined && rateLimitHeaders('reset', f.resetAfter)),
      ...f.headers,
    };
    return fail(
      f.status,
      message,
      'https://docs.github.com/rest/using-the-rest-api/troubleshooting-the-rest-api',
      headers,
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = undefined;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    // GHES serves REST under /api/v3 and GraphQL at /api/graphql.
    let path = url.pathname.replace(/^\/api\/v3(?=\/)/, '');
    if (path === '/api/graphql') path = '/graphql';
    const method = (req.method ?? 'GET').toUpperCase();
    const query = Object.fromEntries(url.searchParams);
    const as = requester(req.headers.authorization);
    const record: SimRequestRecord = {
      method,
      path,
      query,
      status: 0,
      at,
      as,
      ...(body !== undefined ? { body } : {}),
    };
    this.requests.push(record);
    const rerun = receiveRerunRequest(this.model, method, path);
    if (rerun) this.model.rerunRequests.push(rerun);
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    try {
      const out = await this.answer(req, res, record, method, path, query, body);
      if (rerun) answerRerunRequest(rerun, out);
    } finally {
      this.inFlight--;
    }
  }

  /** Requests being answered right now, and the most at once since the last reset. */
  inFlight = 0;
  peakInFlight = 0;

  private async answer(
    req: IncomingMessage,
    res: ServerResponse,
    record: SimRequestRecord,
    method: string,
    path: string,
    query: Record<string, string>,
    body: unknown,
  ): Promise<SimResponse> {
    if (this.latencyMs > 0) await this.latencyWait(this.latencyMs);

    let route: Route | undefined;
    let params: Record<string, string> | null = null;
    for (const r of this.routes) {
      if (r.method !== method) continue;
      params = matchTemplate(r.template, path);
      if (params) {
        route = r;
        break;
      }
    }
    const resource = route ? route.resource : 'core';
    let out: SimResponse;
    const fault = this.takeFault(method, path);
    if (fault) out = this.faultResponse(fault);
    else if (!route || !params) out = fail(404, 'Not Found');
    else {
      const sreq: SimRequest = { method, path, query, headers: req.headers, body, params, auth: { kind: 'none' } };
      const denied = authenticate(this.model, route, sreq);
      const bucket = resource ? this.buckets[resource] : null;
      const limited = denied ? null : (this.contentLimit?.take(sreq) ?? null);
      if (denied) out = denied;
      else if (resource && bucket && bucket.used >= bucket.limit && route.template !== '/rate_limit') {
        out = this.spent(resource, route.docs);
      } else if (limited) {
        out = limited;
      } else {
        try {
          out = await route.handler(sreq, this.ctx);
        } catch (err) {
          out = fail(500, `simulator error: ${(err as Error).message}`);
        }
        // Conditional requests answered 304 are free, as is asking for the rate limit.
        if (bucket && out.status !== 304 && route.template !== '/rate_limit') bucket.used += out.cost ?? 1;
      }
    }
    record.status = out.status;
    this.send(res, out, resource);
    return out;
  }

  private send(res: ServerResponse, out: SimResponse, resource: 'core' | 'graphql' | null): void {
    const headers: Record<string, string> = {};
    if (resource) {
      const b = this.buckets[resource];
      Object.assign(headers, {
        'x-github-request-id': `${randomBytes(4).toString('hex').toUpperCase()}:SIM`,
        'x-github-api-version-selected': '2022-11-28',
        'x-ratelimit-limit': String(b.limit),
        'x-ratelimit-remaining': String(Math.max(0, b.limit - b.used)),
        'x-ratelimit-used': String(b.used),
        'x-ratelimit-reset': String(b.reset),
        'x-ratelimit-resource': resource,
      });
    }
    let payload: Buffer | undefined;
    if (out.raw) {
      payload = out.raw;
      headers['content-type'] = 'text/plain; charset=utf-8';
    } else if (out.body !== undefined && out.status !== 304 && out.status !== 302) {
      payload = Buffer.from(JSON.stringify(out.body));
      headers['content-type'] = 'application/json; charset=utf-8';
    }
    Object.assign(headers, out.headers);
    if (payload) headers['content-length'] = String(payload.length);
    res.writeHead(out.status, headers);
    res.end(payload);
  }
}

/** An App JWT is a three-part token whose claims decode; any other credential is a token's. */
function requester(header: string | undefined): SimRequester {
  const value = /^\w+\s+(.+)$/.exec(header?.trim() ?? '')?.[1];
  if (value === undefined) return 'none';
  return decodeJwt(value) ? 'app' : 'token';
}
