import type { LogEvidence } from '../classify/classify-job.js';
import { LogHostError, RequestTimeoutError } from '../errors.js';
import type { Log } from '../obs/types.js';
import { type RepoRequests, statusOf } from './repo-requests.js';
import type { RequestTimeout } from './request-timeout.js';

/** A 5xx or 429 from the log host says nothing about the log; deciding without it would be wrong. */
async function throwIfTransient(res: Response, jobId: number): Promise<void> {
  if (res.status !== 429 && res.status < 500) return;
  await res.body?.cancel().catch(() => undefined);
  throw new LogHostError(`log host answered ${res.status} for job ${jobId}`);
}

/** Whether a log's redirect host is allowed: an exact name, or `*.suffix` for any host under it. */
export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const h = host.toLowerCase();
  return allow.some((p) => {
    const pat = p.toLowerCase();
    return pat.startsWith('*.') ? h.endsWith(pat.slice(1)) && h.length > pat.length - 1 : h === pat;
  });
}

/** `##[error]` lines of a log slice; a line cut at the window's edge is dropped. */
export function errorLines(text: string, { cutStart, cutEnd }: { cutStart: boolean; cutEnd: boolean }): string[] {
  const lines = text.split(/\r?\n/);
  if (cutStart) lines.shift();
  if (cutEnd) lines.pop();
  const out: string[] = [];
  for (const line of lines) {
    const at = line.indexOf('##[error]');
    if (at >= 0) out.push(line.slice(at + '##[error]'.length).trim());
  }
  return out;
}

async function readBounded(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

/** Streams a whole body keeping only its head and a rolling tail: memory stays bounded. */
async function headAndTail(
  body: ReadableStream<Uint8Array> | null,
  half: number,
): Promise<{ head: Buffer; tail: Buffer; total: number }> {
  const head: Buffer[] = [];
  let headSize = 0;
  let tail = Buffer.alloc(0);
  let total = 0;
  if (!body) return { head: Buffer.alloc(0), tail, total };
  for await (const value of body as unknown as AsyncIterable<Uint8Array>) {
    let chunk = Buffer.from(value);
    total += chunk.length;
    if (headSize < half) {
      const take = chunk.subarray(0, half - headSize);
      head.push(take);
      headSize += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length > 0) {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > half) tail = tail.subarray(tail.length - half);
    }
  }
  return { head: Buffer.concat(head), tail, total };
}

/** Which hosts a log may be read from, how much of it, and where faults are logged. */
export interface JobLogOptions {
  readonly allowHosts: readonly string[];
  readonly windowBytes: number;
  readonly log: Log;
}

/**
 * Reads the `##[error]` lines of a job log's head and tail from the host GitHub redirected to
 * (`location`). Goes only to an allowed host, asks for byte ranges, and never holds more than
 * the window in memory. `fetchLog` is the caller's fetch, so each request is counted.
 */
export async function readLogAt(
  location: string,
  jobId: number,
  opts: JobLogOptions,
  fetchLog: (url: URL, init: RequestInit) => Promise<Response>,
): Promise<LogEvidence> {
  const url = new URL(location);
  if (!hostAllowed(url.hostname, opts.allowHosts)) {
    opts.log.warn('job log redirect refused: host not in the allow-list', { job_id: jobId, host: url.hostname });
    return 'unreadable';
  }
  const half = Math.floor(opts.windowBytes / 2);
  // A further redirect is never followed: the allow-list was checked for this host only.
  const first = await fetchLog(url, { redirect: 'manual', headers: { range: `bytes=0-${half - 1}` } });
  if (first.status === 404 || first.status === 410) return 'missing';
  await throwIfTransient(first, jobId);
  if (first.status === 200) {
    const { head, tail, total } = await headAndTail(first.body, half);
    const headText = head.toString('utf8');
    if (tail.length === 0) return { errors: errorLines(headText, { cutStart: false, cutEnd: false }) };
    const cut = total > head.length + tail.length;
    return {
      errors: [
        ...errorLines(headText, { cutStart: false, cutEnd: cut }),
        ...errorLines(tail.toString('utf8'), { cutStart: cut, cutEnd: false }),
      ],
    };
  }
  if (first.status !== 206) {
    await first.body?.cancel().catch(() => undefined);
    opts.log.warn('job log unreadable', { job_id: jobId, status: first.status });
    return 'unreadable';
  }
  const head = await readBounded(first.body, half);
  const total = Number(/\/(\d+)$/.exec(first.headers.get('content-range') ?? '')?.[1] ?? head.length);
  if (total <= half) return { errors: errorLines(head.toString('utf8'), { cutStart: false, cutEnd: false }) };
  const tailStart = Math.max(half, total - half);
  const second = await fetchLog(url, { redirect: 'manual', headers: { range: `bytes=${tailStart}-${total - 1}` } });
  await throwIfTransient(second, jobId);
  const tail = second.status === 206 ? await readBounded(second.body, half) : Buffer.alloc(0);
  if (tailStart === half) {
    // The two ranges meet: read them as one text so the line across the seam survives.
    return { errors: errorLines(Buffer.concat([head, tail]).toString('utf8'), { cutStart: false, cutEnd: false }) };
  }
  return {
    errors: [
      ...errorLines(head.toString('utf8'), { cutStart: false, cutEnd: true }),
      ...errorLines(tail.toString('utf8'), { cutStart: tailStart > half, cutEnd: false }),
    ],
  };
}

/** How the log host is read: the caller's counted fetch, within the timeout of any GitHub request. */
export interface LogFetch {
  readonly timeout: RequestTimeout;
  readonly fetch: (url: URL, init: RequestInit) => Promise<Response>;
}

/**
 * The `##[error]` lines of a job log's head and tail. GitHub answers with a redirect to the
 * log host; a log GitHub no longer has is `missing`, one it will not show is `unreadable`.
 */
export async function readJobLog(
  calls: RepoRequests,
  jobId: number,
  opts: JobLogOptions,
  host: LogFetch,
): Promise<LogEvidence> {
  let location: string | undefined;
  try {
    const res = await calls.rest('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
      owner: calls.owner,
      repo: calls.repo,
      job_id: jobId,
      request: { redirect: 'manual', parseSuccessResponseBody: false },
    });
    location = (res.headers as Record<string, string | undefined>).location;
  } catch (err) {
    const status = statusOf(err);
    if (status === 404 || status === 410) return 'missing';
    // A rate limit is no refusal to show the log: it is a RateLimitedError, retried later.
    if (status === 403) return 'unreadable';
    throw err;
  }
  if (!location) return 'unreadable';
  // Each read of the log host has the timeout of any GitHub request, its body included.
  const signals: AbortSignal[] = [];
  const timed = (url: URL, init: RequestInit): Promise<Response> => {
    const signal = host.timeout.signal(host.timeout.ms);
    signals.push(signal);
    return host.fetch(url, { ...init, signal });
  };
  try {
    return await readLogAt(location, jobId, opts, timed);
  } catch (err) {
    if (!signals.some((s) => s.aborted)) throw err;
    throw new RequestTimeoutError(`the log host did not answer for job ${jobId} within ${host.timeout.ms} ms`, {
      cause: err,
    });
  }
}
