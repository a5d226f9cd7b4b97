import type { DecisionKind, JobFacts, RepoConfig, RerunAnswer } from '../model.js';

export type RerunNext =
  | { readonly kind: 'final'; readonly decision: DecisionKind; readonly reason: string }
  | { readonly kind: 'call'; readonly call: 'job'; readonly jobId: number }
  | { readonly kind: 'call'; readonly call: 'run' };

/**
 * What follows a re-run answer. A refused `rerun-failed-jobs` on a cancelled-only run falls
 * back to the single job, or to the whole run when `rerun_all_fallback` allows it.
 */
export function afterRerun(
  answer: RerunAnswer,
  candidates: readonly JobFacts[],
  cancelledOnly: boolean,
  cfg: RepoConfig,
): RerunNext {
  if (answer.accepted) {
    if (answer.call === 'run') return { kind: 'final', decision: 'retried_all', reason: 'whole run re-run' };
    if (answer.call === 'job') return { kind: 'final', decision: 'retried', reason: 'the cancelled job was re-run' };
    return { kind: 'final', decision: 'retried', reason: 'rerun-failed-jobs accepted' };
  }
  if (answer.call === 'failed_jobs' && cancelledOnly) {
    const only = candidates.length === 1 ? candidates[0] : undefined;
    if (only) return { kind: 'call', call: 'job', jobId: only.id };
    if (cfg.rerunAllFallback) return { kind: 'call', call: 'run' };
  }
  const hint = cancelledOnly
    ? 'every candidate was cancelled, so GitHub may see no failed job to re-run (rerun_all_fallback re-runs the whole run)'
    : 'a candidate ended failure: the run was probably already re-run, or is too old (30 days) or at 50 re-runs';
  return { kind: 'final', decision: 'rerun_rejected', reason: `${answer.refusal}; ${hint}` };
}
