import { ShapeError } from '../errors.js';
import type { RunMessage } from '../model.js';
import { num, obj, optStr, optTime, str } from './fields.js';

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
