import { RateLimitedError } from '../errors.js';
import { ONE_SHOT } from './client.js';
import { type HttpFault, type RepoRequests, statusOf } from './repo-requests.js';
import { refusalText } from './rerun-call.js';

/** How GitHub answered `force-cancel`: the run is ending, it refused, or a fault that may pass. */
export type ForceCancelAnswer =
  | { readonly kind: 'accepted' }
  | { readonly kind: 'refused'; readonly refusal: string }
  | { readonly kind: 'fault'; readonly fault: string };

/** Statuses that refuse the end for good: the run cannot be cancelled (409), or is not there or not ours. */
export const FORCE_CANCEL_REFUSALS: ReadonlySet<number> = new Set([403, 404, 409, 422]);

/**
 * `POST …/runs/{run_id}/force-cancel`: ends the run without the runners' acknowledgement, which a
 * dead runner never sends. One POST, never sent again in-process. A refusal and a fault (5xx, no
 * answer) are answers, so the caller counts its calls; a rate limit is thrown, as for a re-run.
 */
export async function forceCancelCall(calls: RepoRequests, runId: number): Promise<ForceCancelAnswer> {
  try {
    const { status } = await calls.rest('POST /repos/{owner}/{repo}/actions/runs/{run_id}/force-cancel', {
      owner: calls.owner,
      repo: calls.repo,
      run_id: runId,
      request: ONE_SHOT,
    });
    if (status >= 200 && status < 300) return { kind: 'accepted' };
    return { kind: 'fault', fault: `unexpected ${status} from force-cancel` };
  } catch (err) {
    if (err instanceof RateLimitedError) throw err;
    const status = statusOf(err);
    const e = err as HttpFault;
    const message = e.response?.data?.message ?? e.message;
    if (status !== undefined && FORCE_CANCEL_REFUSALS.has(status)) {
      return { kind: 'refused', refusal: refusalText(status, message) };
    }
    return { kind: 'fault', fault: status === undefined ? `no answer: ${message}` : refusalText(status, message) };
  }
}
