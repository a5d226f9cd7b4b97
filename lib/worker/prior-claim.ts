import type { AttemptRecord } from '../records.js';
import { clip, TEXT_CAPS } from '../util/clip.js';

/** What a message finds when its run attempt is already claimed, in the words its log line gives. */
export interface PriorClaim {
  readonly reason: string;
  /** True when the claim's re-run call failed and nobody knows yet whether GitHub acted. */
  readonly unsettled: boolean;
}

export function priorClaim(prior: AttemptRecord | undefined): PriorClaim {
  if (prior?.decision) return { reason: `attempt already decided: ${prior.decision}`, unsettled: false };
  if (prior?.callError) {
    return {
      reason:
        `the re-run call of attempt ${prior.runAttempt} failed (${prior.callError}) and GitHub may have acted on it: ` +
        'not called again; the reconciler settles the attempt once its claim lapses',
      unsettled: true,
    };
  }
  return { reason: 'attempt is being decided by another worker', unsettled: false };
}

/** A failed re-run call, as the claim notes it: the status GitHub answered, or the fault. */
export function callFailure(err: unknown): string {
  const e = err as { status?: unknown; message?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const said = typeof e?.status === 'number' ? `GitHub answered ${e.status}: ${message}` : message;
  return clip(said, TEXT_CAPS.error);
}
