import { ShapeError } from '../errors.js';
import type { QueueMessage, RecoveryMessage, RunMessage } from '../model.js';
import { isObj, num, obj, type Obj, optStr, optTime, str } from './fields.js';

/** Validates a message read back from the queue: a malformed one is acknowledged, never retried. */
export function parseRunMessage(body: string): RunMessage {
  let m: unknown;
  try {
    m = JSON.parse(body);
  } catch {
    throw new ShapeError('message body is not JSON');
  }
  const o = obj(m, 'message');
  if (o.v !== 1) throw new ShapeError('message.v: expected 1');
  const repo = obj(o.repository, 'message.repository');
  const wf = obj(o.workflow, 'message.workflow');
  if (o.installationId !== null) num(o, 'installationId', 'message');
  num(repo, 'id', 'message.repository');
  str(repo, 'owner', 'message.repository');
  str(repo, 'name', 'message.repository');
  num(o, 'runId', 'message');
  if (num(o, 'runAttempt', 'message') < 1) throw new ShapeError('message.runAttempt: expected at least 1');
  num(wf, 'id', 'message.workflow');
  if (typeof wf.name !== 'string') throw new ShapeError('message.workflow.name: expected a string');
  str(o, 'deliveryId', 'message');
  str(o, 'event', 'message');
  str(o, 'headSha', 'message');
  optStr(o, 'headBranch', 'message');
  if (o.conclusion !== 'failure' && o.conclusion !== 'cancelled') throw new ShapeError('message.conclusion: invalid');
  if (!Array.isArray(o.pullRequests)) throw new ShapeError('message.pullRequests: expected a list');
  optTime(o, 'createdAt', 'message');
  if (o.runNumber !== undefined) num(o, 'runNumber', 'message');
  return m as RunMessage;
}

/** FIFO group: every delivery of one run is decided in order, runs in parallel. */
export const messageGroupId = (m: RunMessage): string => `${m.repository.id}#${m.runId}`;

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
