import type { GitHubSimulator } from '../sim/index.js';
import { INSTALLATION_ID } from './harness.js';
import { realExamples } from './webhooks.js';

type Payload = Record<string, unknown>;

/**
 * A `workflow_job` delivery for a simulator job: GitHub's real example payload with the job,
 * repository and installation the simulator serves, and the action asked for.
 */
export function workflowJobPayload(
  sim: GitHubSimulator,
  runId: number,
  jobId: number,
  action: 'queued' | 'in_progress' | 'completed',
): Payload {
  const base = realExamples('workflow_job')[0]!;
  const run = sim.workflowRunJson(runId) as unknown as Payload & { repository: Payload };
  return {
    ...base,
    action,
    workflow_job: sim.workflowJobJson(jobId),
    repository: { ...(base.repository as Payload), ...run.repository },
    installation: { id: INSTALLATION_ID, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==' },
  };
}
