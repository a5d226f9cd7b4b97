import { TransientError } from '../errors.js';
import type { RerunAnswer, RerunCall } from '../model.js';
import { ONE_SHOT } from './client.js';
import { type HttpFault, type RepoRequests, statusOf } from './repo-requests.js';

/** Statuses GitHub uses to refuse a re-run; anything else is a fault and is retried. */
export const RERUN_REFUSALS: ReadonlySet<number> = new Set([403, 404, 409, 422]);

/** GitHub's refusal in words the decision can quote. */
export function refusalText(status: number, message: string | undefined): string {
  return message ? `GitHub said ${status}: ${message}` : `GitHub answered ${status}`;
}

/** The re-run endpoint of each call. */
const RERUN_ROUTES: Readonly<Record<RerunCall, string>> = {
  failed_jobs: 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
  job: 'POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun',
  run: 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun',
};

/**
 * A refusal (403/404/409/422) is an answer; any other failure propagates and the message is
 * retried. Each call is one POST: never sent again in-process (see ONE_SHOT).
 */
export async function rerunCall(
  calls: RepoRequests,
  call: RerunCall,
  params: Record<string, number>,
): Promise<RerunAnswer> {
  let status: number;
  try {
    ({ status } = await calls.rest(RERUN_ROUTES[call], {
      owner: calls.owner,
      repo: calls.repo,
      ...params,
      request: ONE_SHOT,
    }));
  } catch (err) {
    const refused = statusOf(err);
    if (refused === undefined || !RERUN_REFUSALS.has(refused)) throw err;
    const e = err as HttpFault;
    return { call, accepted: false, refusal: refusalText(refused, e.response?.data?.message ?? e.message) };
  }
  if (status >= 200 && status < 300) return { call, accepted: true };
  throw new TransientError(`unexpected ${status} from the ${call} re-run call`);
}
