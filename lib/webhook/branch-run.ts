import { isBranchEvent, type BranchRun } from '../decide/branch-staleness.js';
import type { BranchRunKey } from '../records.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const id = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** The branch run a `workflow_run` event (requested, in_progress, completed) reports. */
export interface ReportedBranchRun {
  readonly key: BranchRunKey;
  readonly run: BranchRun;
}

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
