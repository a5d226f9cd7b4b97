/**
 * A `workflow_run` delivery, read once: the queue message of a completed red run, the attempt a
 * green re-run completed, the branch run every action reports, and why a delivery is not enqueued.
 */
import { isBranchEvent } from '../decide/branch-staleness.js';
import { ShapeError } from '../errors.js';
import type { RunMessage } from '../model.js';
import type { AttemptRef, ReportedBranchRun } from '../records.js';
import { NOT_XML_CHARACTER } from '../queue/sqs-limits.js';
import { isObj, num, type Obj, obj, optRunNumber, optStr, optTime, str } from './fields.js';

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
function completedAttemptFrom(payload: unknown): AttemptRef {
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

const id = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/**
 * The run of a branch a `workflow_run` payload reports, or why it reports none. Only runs of the
 * repository's own branches count: a fork's pull request may come from a branch of the same name
 * (its `main`), and its head repository then names the fork.
 */
export function branchRunFrom(payload: Obj): ReportedBranchRun | string {
  const run = payload.workflow_run;
  const repo = payload.repository;
  if (!isObj(run) || !isObj(repo)) return 'not a workflow_run payload';
  if (typeof run.event !== 'string' || !isBranchEvent(run.event)) return `not a branch run: event ${String(run.event)}`;
  const branch = run.head_branch;
  if (typeof branch !== 'string' || branch === '') return 'no head branch';
  const head = run.head_repository;
  const headRepoId = isObj(head) ? head.id : run.head_repository_id;
  if (!id(repo.id) || headRepoId !== repo.id) return 'the head repository is not the repository';
  if (!id(run.id) || !id(run.run_number) || !id(run.workflow_id)) return 'no run id, number or workflow id';
  if (typeof run.head_sha !== 'string' || run.head_sha === '') return 'no head sha';
  const installation = payload.installation;
  return {
    key: {
      installationId: isObj(installation) && id(installation.id) ? installation.id : null,
      repoId: repo.id,
      workflowId: run.workflow_id,
      branch,
    },
    run: { runId: run.id, runNumber: run.run_number, headSha: run.head_sha },
  };
}

/** Why a `workflow_run` delivery is not enqueued, or undefined when it is a completed red run. */
function ignoredRunReason(payload: Obj): string | undefined {
  if (payload.action !== 'completed') return `ignored: action ${String(payload.action)}`;
  const run = payload.workflow_run as Obj | undefined;
  const conclusion = run?.conclusion;
  if (conclusion !== 'failure' && conclusion !== 'cancelled') return `ignored: conclusion ${String(conclusion)}`;
  return undefined;
}

/** A green completion of a later attempt: it may be a re-run reprise made, and then it recovered. */
function isGreenRerun(payload: Obj): boolean {
  const run = payload.workflow_run as Obj | undefined;
  return (
    payload.action === 'completed' &&
    run?.conclusion === 'success' &&
    typeof run.run_attempt === 'number' &&
    run.run_attempt > 1
  );
}

/** What a `workflow_run` delivery says, each part read from the payload or the reason it is not there. */
export interface WorkflowRunDelivery {
  /** The branch's newest run, recorded whatever the action or conclusion. */
  readonly branchRun: ReportedBranchRun | string;
  /** A green completion of a later attempt: a re-run's outcome, not a run to decide. */
  readonly greenRerun: boolean;
  /** The attempt a green re-run completed, or what is wrong with the payload. */
  readonly attempt: AttemptRef | ShapeError;
  /** Why the delivery is not enqueued, or undefined when it is a completed red run. */
  readonly ignored: string | undefined;
  /** The queue message of a completed red run, or what is wrong with the payload. */
  readonly message: RunMessage | ShapeError;
}

/** A parse whose only failure is a ShapeError, with the error kept as the answer; any other error is thrown. */
function shapeOrValue<T>(read: () => T): T | ShapeError {
  try {
    return read();
  } catch (err) {
    if (err instanceof ShapeError) return err;
    throw err;
  }
}

/** Reads a `workflow_run` delivery once, for every use the intake makes of it. */
export function readWorkflowRun(payload: Obj, deliveryId: string): WorkflowRunDelivery {
  const ignored = ignoredRunReason(payload);
  const greenRerun = isGreenRerun(payload);
  return {
    branchRun: branchRunFrom(payload),
    greenRerun,
    attempt: greenRerun ? shapeOrValue(() => completedAttemptFrom(payload)) : new ShapeError('not a green re-run'),
    ignored,
    message:
      ignored === undefined ? shapeOrValue(() => runMessageFromPayload(payload, deliveryId)) : new ShapeError(ignored),
  };
}
