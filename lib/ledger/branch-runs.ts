import type { BranchRun } from '../decide/branch-staleness.js';
import type { BranchRunKey } from '../records.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';

/**
 * The newest run of each workflow on each branch, from the `workflow_run` events the intake
 * receives: the worker judges a superseded branch run from it without asking GitHub.
 */
export interface BranchRuns {
  /** Records `run` unless a run as new or newer is recorded; true when it was written. */
  record(key: BranchRunKey, run: BranchRun): Promise<boolean>;
  /** The newest run recorded, or undefined when none is. */
  newest(key: BranchRunKey): Promise<BranchRun | undefined>;
}

const keyOf = (k: BranchRunKey) => keys.branchRun(k.installationId, k.repoId, k.workflowId, k.branch);

/**
 * One item per workflow and branch. The write is conditional on the run number, so events that
 * arrive out of order (an older run's `completed` after a newer run's `requested`) never move it back.
 */
export class TableBranchRuns implements BranchRuns {
  constructor(
    private readonly table: Table,
    private readonly now: () => number = Date.now,
  ) {}

  record(key: BranchRunKey, run: BranchRun): Promise<boolean> {
    const item = {
      ...keyOf(key),
      runId: run.runId,
      runNumber: run.runNumber,
      headSha: run.headSha,
      ttl: ttlFrom(this.now(), TTL.branchRun),
    };
    return this.table.putIf(item, {
      expression: 'attribute_not_exists(#pk) OR #runNumber < :runNumber',
      values: { ':runNumber': run.runNumber },
    });
  }

  async newest(key: BranchRunKey): Promise<BranchRun | undefined> {
    // Read consistently: the intake wrote it just before it enqueued the run now decided.
    const item = await this.table.get<BranchRun>(keyOf(key), true);
    return item ? { runId: item.runId, runNumber: item.runNumber, headSha: item.headSha } : undefined;
  }
}
