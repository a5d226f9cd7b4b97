import { fail, intParam, notFound, type Route, type SimResponse } from './http.js';
import { findJob } from './routes-actions.js';

const LOGS_DOCS = 'https://docs.github.com/rest/actions/workflow-jobs#download-job-logs-for-a-workflow-run';

function blobError(status: number, code: string): SimResponse {
  return { status, raw: Buffer.from(`${code}\n`) };
}

/** Parses a single `bytes=` range; null = serve everything, 'bad' = unsatisfiable. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'bad' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, a = '', b = ''] = m;
  if (a === '' && b === '') return 'bad';
  if (a === '') {
    const n = Number(b);
    if (n === 0 || size === 0) return 'bad';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (start >= size || end < start) return 'bad';
  return { start, end };
}

export const logRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
    auth: 'token',
    resource: 'core',
    docs: LOGS_DOCS,
    handler: (req, ctx) => {
      const found = findJob(req, ctx);
      if (!found) return notFound(LOGS_DOCS);
      const log = found.job.log;
      if (log === null) return notFound(LOGS_DOCS);
      if (typeof log === 'object') return fail(log.status, log.status === 410 ? 'Gone' : 'Not Found', LOGS_DOCS);
      return { status: 302, headers: { location: ctx.logUrl(found.job.id) } };
    },
  },
  {
    // The signed-URL host: not the API, so no auth header, no rate limit.
    method: 'GET',
    template: '/_logs/{job_id}',
    auth: 'none',
    resource: null,
    docs: LOGS_DOCS,
    handler: (req, ctx) => {
      const id = intParam(req, 'job_id');
      if (id === null || !ctx.checkLogSignature(id, req.query.sig ?? '', req.query.exp ?? '')) {
        return blobError(403, 'AuthenticationFailed');
      }
      const log = ctx.model.jobs.get(id)?.job.log;
      if (typeof log !== 'string') return blobError(404, 'BlobNotFound');
      const data = Buffer.from(log, 'utf8');
      const header = req.headers.range;
      const range = parseRange(typeof header === 'string' ? header : undefined, data.length);
      if (range === 'bad') {
        return { status: 416, raw: Buffer.alloc(0), headers: { 'content-range': `bytes */${data.length}` } };
      }
      const part = range ? data.subarray(range.start, range.end + 1) : data;
      ctx.countLogBytes(part.length);
      const headers: Record<string, string> = { 'accept-ranges': 'bytes' };
      if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${data.length}`;
      return { status: range ? 206 : 200, raw: part, headers };
    },
  },
];
