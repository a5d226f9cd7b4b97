import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { SimModel } from './model.js';

export type AuthInfo =
  | { kind: 'none' }
  | { kind: 'jwt'; issuer: string | null }
  | { kind: 'token'; token: string; installationId: number | null };

export interface SimRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  params: Record<string, string>;
  auth: AuthInfo;
}

export interface SimResponse {
  status: number;
  /** JSON body; omitted for 302/304. */
  body?: unknown;
  /** Raw body, sent as is (logs). */
  raw?: Buffer;
  headers?: Record<string, string>;
  /** Points the answer costs against its rate-limit bucket; default 1. */
  cost?: number;
}

/** What handlers may use besides the model. */
export interface SimContext {
  model: SimModel;
  /** REST base of the simulator, e.g. http://127.0.0.1:PORT */
  api: string;
  /** A signed, expiring URL on the log host for one job's log. */
  logUrl(jobId: number): string;
  /** Whether a log URL's signature is valid and unexpired. */
  checkLogSignature(jobId: number, sig: string, exp: string): boolean;
  countLogBytes(n: number): void;
  rateLimits(): Record<string, { limit: number; remaining: number; reset: number; used: number }>;
  /** Called after a delivery is redelivered; may answer the status code the redelivery got. */
  redeliver(delivery: { guid: string; event: string; action: string | null }): Promise<number>;
}

export type Handler = (req: SimRequest, ctx: SimContext) => SimResponse | Promise<SimResponse>;

export interface Route {
  method: string;
  /** OpenAPI path template; `{path}` spans slashes. */
  template: string;
  auth: 'token' | 'jwt' | 'none';
  /** Rate-limit bucket, or null for the log host (which is not api.github.com). */
  resource: 'core' | 'graphql' | null;
  /** documentation_url in error bodies. */
  docs: string;
  handler: Handler;
}

export const DOCS = 'https://docs.github.com/rest';

export function fail(status: number, message: string, docs = DOCS, headers?: Record<string, string>): SimResponse {
  return { status, body: { message, documentation_url: docs, status: String(status) }, headers };
}

export function notFound(docs = DOCS): SimResponse {
  return fail(404, 'Not Found', docs);
}

export function json(body: unknown, status = 200, headers?: Record<string, string>): SimResponse {
  return { status, body, headers };
}

/** GitHub's weak ETag of an answer: a hash of its body. */
export function weakEtag(body: unknown): string {
  return `W/"${createHash('sha256').update(JSON.stringify(body)).digest('hex')}"`;
}

/** Whether an `If-None-Match` header names `etag` (weak and strong compared alike, as GitHub does for GETs). */
export function sameEtag(header: string | string[] | undefined, etag: string): boolean {
  if (typeof header !== 'string') return false;
  const bare = (s: string) => s.trim().replace(/^W\//, '');
  return header.split(',').some((h) => h.trim() === '*' || bare(h) === bare(etag));
}

/**
 * A listing answered as GitHub answers one: with a weak ETag of its body, and 304 with no body
 * when the request's `If-None-Match` names it; the server does not count a 304 against the rate
 * limit. GitHub, "Best practices for using the REST API", Use conditional requests
 * (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate):
 * "If the data has not changed, you will receive a 304 Not Modified response. Making a
 * conditional request does not count against your primary rate limit if a 304 response is
 * returned". The job listings answer with `W/"<64 hex>"` ETags. Each page is its own answer, with
 * its own ETag. The model may be told to ignore the condition (a control).
 */
export function conditionalJson(
  req: SimRequest,
  ctx: SimContext,
  body: unknown,
  headers: Record<string, string> = {},
): SimResponse {
  const etag = weakEtag(body);
  if (ctx.model.honoursIfNoneMatch && sameEtag(req.headers['if-none-match'], etag)) {
    return { status: 304, headers: { etag } };
  }
  return json(body, 200, { ...headers, etag });
}

export function intParam(req: SimRequest, name: string): number | null {
  const v = req.params[name] ?? '';
  return /^\d+$/.test(v) ? Number(v) : null;
}

/** Page/per_page pagination with GitHub's Link header (first/prev/next/last). */
export function paginate<T>(
  items: readonly T[],
  req: SimRequest,
  ctx: SimContext,
  defaultPerPage = 30,
): { page: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(req.query.per_page ?? defaultPerPage) || defaultPerPage));
  const page = Math.max(1, Number(req.query.page ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (p: number, rel: string): string => {
    const q = new URLSearchParams({ ...req.query, per_page: String(perPage), page: String(p) });
    return `<${ctx.api}${req.path}?${q.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(page - 1, 'prev'));
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'));
  const headers: Record<string, string> = links.length ? { link: links.join(', ') } : {};
  return { page: items.slice((page - 1) * perPage, page * perPage), headers };
}

/** Matches a path against a template; returns decoded params or null. */
export function matchTemplate(template: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return name === 'path' ? '(.+)' : '([^/]+)';
  });
  const m = new RegExp(`^${source}/?$`).exec(path);
  if (!m) return null;
  const params: Record<string, string> = {};
  names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1] ?? '')));
  return params;
}
