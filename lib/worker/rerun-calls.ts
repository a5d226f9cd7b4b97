/**
 * The act: the re-run call, one POST per call, with the fallbacks GitHub's answer leads to; or,
 * for a merge-group run, the pull request put back in the queue (requeue.ts).
 */
import { candidateJobs } from '../decide/decide.js';
import { afterRerun } from '../decide/rerun-outcome.js';
import type { RepoApi } from '../github/repo-api.js';
import {
  type Decision,
  type DecisionKind,
  isRerunDecision,
  type JobFacts,
  type RepoConfig,
  type RerunAnswer,
  type RunMessage,
} from '../model.js';
import type { Judged } from './evaluate.js';
import { actOnMergeGroup, type RequeueContext } from './requeue.js';
import { SentRequestError } from './sent-request-error.js';

/** The re-run `decide()` asked for: its reason, and whether only cancelled jobs are to be re-run. */
export interface RerunStep {
  readonly reason: string;
  readonly cancelledOnly: boolean;
}

/**
 * The re-run call, then the fallbacks GitHub's answer leads to (the single cancelled job, or the
 * whole run), until the answer is final. A rate limit or a fault of a call is thrown.
 */
export async function rerunCalls(
  api: RepoApi,
  msg: RunMessage,
  candidates: readonly JobFacts[],
  step: RerunStep,
  config: RepoConfig,
): Promise<{ decision: DecisionKind; reason: string }> {
  let answer = await api.rerunFailedJobs(msg.runId);
  // The refusals so far, so a final refusal names every refused call.
  const refused: RerunAnswer[] = [];
  for (;;) {
    const next = afterRerun(answer, candidates, step.cancelledOnly, config, refused);
    if (next.kind === 'final') {
      const reason = isRerunDecision(next.decision) ? `${step.reason}; ${next.reason}` : next.reason;
      return { decision: next.decision, reason };
    }
    refused.push(answer);
    answer = next.call === 'job' ? await api.rerunJob(next.jobId) : await api.rerunRun(msg.runId);
  }
}

/** The act's decision, `sent` when a re-run call or the merge-queue mutation left on the way: from then on the claim stays on a fault. */
export type Acted = Decision & { readonly sent: boolean };

/**
 * Re-runs the run that earned it, or, for a merge-group run, puts its pull request back in the
 * merge queue (falling back to the re-run). A fault before anything left is thrown as it is; one
 * once a request left is thrown as a `SentRequestError`, in flight for a re-run call.
 */
export async function act(
  msg: RunMessage,
  judged: Judged,
  step: RerunStep,
  api: RepoApi,
  ctx: RequeueContext,
): Promise<Acted> {
  const { config } = judged;
  const queued = await actOnMergeGroup(msg, config, api, ctx, step.reason);
  if (queued.kind === 'final') return { decision: queued.decision, reason: queued.reason, sent: queued.sent };
  let done: { decision: DecisionKind; reason: string };
  try {
    const candidates = candidateJobs(judged.facts.jobs ?? [], msg, config);
    done = await rerunCalls(api, msg, candidates, step, config);
  } catch (err) {
    throw new SentRequestError(err, true);
  }
  return { ...done, reason: queued.note ? `${done.reason}; ${queued.note}` : done.reason, sent: true };
}
