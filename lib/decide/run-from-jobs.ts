import type { JobFacts, RunFacts, RunMessage } from '../model.js';

/**
 * The run's state read off its latest jobs, standing in for a read of the run itself: a job
 * re-run in a newer attempt is listed with that attempt, and a run running again has a job
 * that is not completed. Undefined when the listing cannot answer for the run (no jobs, a job
 * without its attempt, no job as recent as the attempt being decided, or a message without
 * the run's creation time); the caller then reads the run.
 */
export function runFromLatestJobs(msg: RunMessage, jobs: readonly JobFacts[]): RunFacts | undefined {
  if (!msg.createdAt || jobs.length === 0 || jobs.some((j) => j.runAttempt < 1)) return undefined;
  const runAttempt = jobs.reduce((max, j) => Math.max(max, j.runAttempt), 0);
  if (runAttempt < msg.runAttempt) return undefined;
  const open = jobs.find((j) => j.status !== 'completed');
  const sameAttempt = runAttempt === msg.runAttempt;
  return {
    id: msg.runId,
    status: open ? open.status : 'completed',
    conclusion: !open && sameAttempt ? msg.conclusion : null,
    runAttempt,
    event: msg.event,
    headSha: msg.headSha,
    headBranch: msg.headBranch,
    workflowId: msg.workflow.id,
    createdAt: msg.createdAt,
  };
}
