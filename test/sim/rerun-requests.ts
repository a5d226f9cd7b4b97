import { matchTemplate, type SimResponse } from './http.js';
import type { SimModel } from './model.js';
import type { SimRerunRequest } from './types.js';

const RERUN_ROUTES: readonly { template: string; kind: SimRerunRequest['kind'] }[] = [
  { template: '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs', kind: 'failed_jobs' },
  { template: '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun', kind: 'run' },
  { template: '/repos/{owner}/{repo}/actions/jobs/{job_id}/rerun', kind: 'job' },
];

const id = (v: string | undefined): number | null => (v && /^\d+$/.test(v) ? Number(v) : null);

/**
 * The record of a re-run POST as it arrives, before anything (fault, auth, rate limit, the
 * re-run itself) answers it; null for any other request.
 */
export function receiveRerunRequest(model: SimModel, method: string, path: string): SimRerunRequest | null {
  if (method !== 'POST') return null;
  for (const route of RERUN_ROUTES) {
    const params = matchTemplate(route.template, path);
    if (!params) continue;
    const jobId = id(params.job_id);
    const runId = jobId === null ? id(params.run_id) : (model.jobs.get(jobId)?.run.id ?? null);
    const run = runId === null ? undefined : model.runs.get(runId);
    return {
      kind: route.kind,
      runId: run ? runId : null,
      ...(jobId !== null && { jobId }),
      attempt: run ? run.latest.number : null,
      at: Date.now(),
      status: 0,
      message: null,
    };
  }
  return null;
}

/** Fills in the answer GitHub gave. */
export function answerRerunRequest(request: SimRerunRequest, out: SimResponse): void {
  request.status = out.status;
  const message = (out.body as { message?: unknown } | undefined)?.message;
  request.message = out.status >= 300 && typeof message === 'string' ? message : null;
}

/** What GitHub received for one run, counted from its re-run requests. */
export interface RerunTally {
  /** Every re-run POST naming the run, whatever the answer. */
  readonly received: number;
  /** Those GitHub accepted (a new attempt started). */
  readonly accepted: number;
  /**
   * Those that arrived after one was accepted: the same re-run asked for again, refused or
   * not. For a run that earns one re-run, any repeat is a duplicate call.
   */
  readonly repeats: number;
}

/** Per run, from every re-run request GitHub received (not only the ones it accepted). */
export function tallyReruns(requests: readonly SimRerunRequest[]): Map<number, RerunTally> {
  const out = new Map<number, { received: number; accepted: number; repeats: number }>();
  // Kept in order of arrival.
  for (const r of requests) {
    if (r.runId === null) continue;
    const t = out.get(r.runId) ?? { received: 0, accepted: 0, repeats: 0 };
    if (t.accepted > 0) t.repeats++;
    t.received++;
    if (r.status >= 200 && r.status < 300) t.accepted++;
    out.set(r.runId, t);
  }
  return out;
}

export const NO_RERUNS: RerunTally = { received: 0, accepted: 0, repeats: 0 };
