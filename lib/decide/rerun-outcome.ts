import type { DecisionKind, JobFacts, RepoConfig, RerunAnswer } from '../model.js';

/** After GitHub answered a re-run call: the decision it makes final, or the fallback call to try next. */
export type RerunNext =
  | { readonly kind: 'final'; readonly decision: DecisionKind; readonly reason: string }
  | { readonly kind: 'call'; readonly call: 'job'; readonly jobId: number }
  | { readonly kind: 'call'; readonly call: 'run' };

/** Each re-run call as a reason names it. */
const CALL_NAME: Record<RerunAnswer['call'], string> = {
  failed_jobs: 'rerun-failed-jobs',
  job: 'the single-job fallback',
  run: 'the whole-run fallback',
};

/**
 * What follows a re-run answer. A refused `rerun-failed-jobs` on a cancelled-only run falls
 * back to the single job, or to the whole run when `rerun_all_fallback` allows it; a refused
 * single job falls back to the whole run too when it allows it, since GitHub may still accept
 * that. Each call is made at most once: the chain is failed jobs, job, run. `earlier` holds
 * the refusals that led to this call, so a final refusal names every refused call.
 */
export function afterRerun(
  answer: RerunAnswer,
  candidates: readonly JobFacts[],
  cancelledOnly: boolean,
  cfg: RepoConfig,
  earlier: readonly RerunAnswer[] = [],
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
  if (answer.call === 'job' && cancelledOnly && cfg.rerunAllFallback) return { kind: 'call', call: 'run' };
  const refused = [...earlier, answer].filter((a) => !a.accepted);
  const named = refused.map((a) => `${CALL_NAME[a.call]} refused (${a.accepted ? '' : a.refusal})`).join('; ');
  let hint: string;
  if (answer.call === 'run') {
    hint = 'the whole run could not be re-run either: it is probably too old (30 days) or at 50 re-runs';
  } else if (answer.call === 'job') {
    hint = 'the cancelled job could not be re-run either: it is probably too old (30 days) or at 50 re-runs';
  } else if (cancelledOnly) {
    hint =
      'every candidate was cancelled, so GitHub may see no failed job to re-run (rerun_all_fallback re-runs the whole run)';
  } else {
    hint = 'a candidate ended failure: the run was probably already re-run, or is too old (30 days) or at 50 re-runs';
  }
  return { kind: 'final', decision: 'rerun_rejected', reason: `${named}; ${hint}` };
}
