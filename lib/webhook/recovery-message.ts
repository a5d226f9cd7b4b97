import { createHash } from 'node:crypto';
import { ShapeError } from '../errors.js';
import type { QueueMessage, RecoveryMessage, RunMessage } from '../model.js';
import type { RunRecord } from '../github/repo-answers.js';
import { parseRunMessage } from './run-message.js';
import { isObj, type Obj } from './fields.js';
import { runMessageFromPayload } from './workflow-run.js';

const id = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const text = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** Reads a recovery request back from the queue: a malformed one is acknowledged, never retried. */
export function parseRecoveryMessage(o: Obj): RecoveryMessage {
  const repo = o.repository;
  if (!isObj(repo) || !id(repo.id) || !text(repo.owner) || !text(repo.name)) {
    throw new ShapeError('recovery.repository: expected { id, owner, name }');
  }
  if (o.installationId !== null && !id(o.installationId))
    throw new ShapeError('recovery.installationId: expected an id');
  if (!id(o.runId) || !id(o.jobId)) throw new ShapeError('recovery.runId, jobId: expected ids');
  if (!text(o.runnerName)) throw new ShapeError('recovery.runnerName: expected a string');
  if (o.trigger !== 'signal' && o.trigger !== 'sibling_ended') throw new ShapeError('recovery.trigger: invalid');
  return o as unknown as RecoveryMessage;
}

/** Either message the work queue carries, told apart by `kind`. */
export function parseQueueMessage(body: string): QueueMessage {
  let m: unknown;
  try {
    m = JSON.parse(body);
  } catch {
    throw new ShapeError('message body is not JSON');
  }
  if (isObj(m) && m.kind === 'recovery') {
    if (m.v !== 1) throw new ShapeError('message.v: expected 1');
    return parseRecoveryMessage(m);
  }
  return parseRunMessage(body);
}

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
