import { afterRerun } from '../decide/rerun-outcome.js';
import type { RepoApi } from '../github/repo-api.js';
import {
  type DecisionKind,
  isRerunDecision,
  type JobFacts,
  type RepoConfig,
  type RerunAnswer,
  type RunMessage,
} from '../model.js';

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
