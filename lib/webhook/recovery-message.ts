import { createHash } from 'node:crypto';
import type { RecoveryMessage, RunMessage } from '../model.js';
import type { RunRecord } from '../github/repo-answers.js';
import { runMessageFromPayload } from './workflow-run.js';

/**
 * A run's recovery requests share a group of their own: a request waiting out a spot warning
 * never holds back the run's completion, and the run-attempt claim keeps the two apart.
 */
export const recoveryGroupId = (m: RecoveryMessage): string => `${m.repository.id}#${m.runId}#recovery`;

/** One request per signal event and job, or per sibling that ended: a redelivery of either sends nothing new. */
export function recoveryDeduplicationId(m: RecoveryMessage, cause: string): string {
  const digest = createHash('sha256').update(cause).digest('hex').slice(0, 32);
  return `recovery-${m.runId}-${m.jobId}-${digest}`;
}

/**
 * The run as a `RunMessage`, from its REST record while it is still in progress, for the checks
 * that read one (staleness). The conclusion is not known yet; nothing reads it there.
 */
export function runMessageOfRecord(m: RecoveryMessage, record: RunRecord): RunMessage {
  const { owner, name, id: repoId } = m.repository;
  return runMessageFromPayload(
    {
      workflow_run: { ...record, conclusion: 'cancelled', pull_requests: record.pull_requests ?? [] },
      repository: { id: repoId, name, owner: { login: owner } },
      installation: m.installationId === null ? undefined : { id: m.installationId },
    },
    `recovery-${m.runId}`,
  );
}
