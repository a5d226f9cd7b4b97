import { ShapeError } from '../errors.js';
import type { RunMessage } from '../model.js';
import type { AttemptRef } from '../records.js';
import { NOT_XML_CHARACTER } from '../queue/sqs-limits.js';

type Obj = Record<string, unknown>;

const obj = (v: unknown, at: string): Obj => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ShapeError(`${at}: expected an object`);
  return v as Obj;
};
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (o: Obj, k: string, at: string): number => {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new ShapeError(`${at}.${k}: expected an id`);
  return v;
};
const str = (o: Obj, k: string, at: string): string => {
  const v = o[k];
  if (typeof v !== 'string' || v === '') throw new ShapeError(`${at}.${k}: expected a string`);
  return v;
};
const optStr = (o: Obj, k: string, at: string): string | null => {
  const v = o[k];
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw new ShapeError(`${at}.${k}: expected a string or null`);
  return v;
};

/** `{ createdAt }` when the field holds a timestamp, `{}` when it is absent. */
const optTime = (o: Obj, k: string, at: string): { createdAt?: string } => {
  const v = o[k];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw new ShapeError(`${at}.${k}: expected a timestamp`);
  return { createdAt: v };
};

/** `{ runNumber }` when the run carries its number, `{}` when it is absent. */
const optRunNumber = (o: Obj, at: string): { runNumber?: number } =>
  o.run_number === undefined || o.run_number === null ? {} : { runNumber: num(o, 'run_number', at) };

/** Far above any real run's message, far below SQS's limit. */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** A message the queue would refuse is a bad payload (400), not a failed enqueue (5xx). */
function checkSendable(m: RunMessage): RunMessage {
  const body = JSON.stringify(m);
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > MAX_MESSAGE_BYTES) throw new ShapeError(`fields too large for a queue message (${bytes} bytes)`);
  // JSON.stringify leaves U+FFFE and U+FFFF as they are.
  if (NOT_XML_CHARACTER.test(body)) throw new ShapeError('fields hold characters a queue message cannot carry');
  return m;
}

/** Builds the small queue message from a `workflow_run` payload; throws ShapeError naming the field at fault. */
export function runMessageFromPayload(payload: unknown, deliveryId: string): RunMessage {
  const p = obj(payload, 'payload');
  const run = obj(p.workflow_run, 'workflow_run');
  const repo = obj(p.repository, 'repository');
  const owner = obj(repo.owner, 'repository.owner');
  const installation = p.installation === undefined ? undefined : obj(p.installation, 'installation');
  const conclusion = run.conclusion;
  if (conclusion !== 'failure' && conclusion !== 'cancelled') {
    throw new ShapeError('workflow_run.conclusion: expected failure or cancelled');
  }
  const prs = run.pull_requests === undefined ? [] : run.pull_requests;
  if (!Array.isArray(prs)) throw new ShapeError('workflow_run.pull_requests: expected a list');
  return checkSendable({
    v: 1,
    deliveryId,
    installationId: installation ? num(installation, 'id', 'installation') : null,
    repository: {
      id: num(repo, 'id', 'repository'),
      owner: str(owner, 'login', 'repository.owner'),
      name: str(repo, 'name', 'repository'),
    },
    runId: num(run, 'id', 'workflow_run'),
    runAttempt: num(run, 'run_attempt', 'workflow_run'),
    workflow: {
      id: num(run, 'workflow_id', 'workflow_run'),
      // Runs may carry an empty or missing name; the workflow's own name is the fallback.
      name:
        optStr(run, 'name', 'workflow_run') ||
        (isObj(p.workflow) ? optStr(p.workflow, 'name', 'workflow') : null) ||
        '',
      // Older payloads carry the path only on the top-level workflow object.
      path: optStr(run, 'path', 'workflow_run') ?? (isObj(p.workflow) ? optStr(p.workflow, 'path', 'workflow') : null),
    },
    event: str(run, 'event', 'workflow_run'),
    headSha: str(run, 'head_sha', 'workflow_run'),
    headBranch: optStr(run, 'head_branch', 'workflow_run'),
    conclusion,
    pullRequests: prs.map((pr, i) =>
      num(obj(pr, `workflow_run.pull_requests[${i}]`), 'number', `workflow_run.pull_requests[${i}]`),
    ),
    ...optTime(run, 'created_at', 'workflow_run'),
    ...optRunNumber(run, 'workflow_run'),
  });
}

/** The attempt a green `workflow_run.completed` payload reports: all a re-run outcome needs. */
export function completedAttemptFrom(payload: unknown): AttemptRef {
  const p = obj(payload, 'payload');
  const run = obj(p.workflow_run, 'workflow_run');
  const repo = obj(p.repository, 'repository');
  const owner = obj(repo.owner, 'repository.owner');
  const installation = p.installation === undefined ? undefined : obj(p.installation, 'installation');
  return {
    installationId: installation ? num(installation, 'id', 'installation') : null,
    repoId: num(repo, 'id', 'repository'),
    repository: `${str(owner, 'login', 'repository.owner')}/${str(repo, 'name', 'repository')}`,
    runId: num(run, 'id', 'workflow_run'),
    runAttempt: num(run, 'run_attempt', 'workflow_run'),
  };
}

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
