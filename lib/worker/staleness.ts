import {
  type BranchRun,
  branchRule,
  fromListed,
  fromNewestRecorded,
  isBranchEvent,
  isPullRequestEvent,
  type SupersededBy,
} from '../decide/branch-staleness.js';
import type { StaleFacts } from '../decide/decide.js';
import { type DeliveryGap, noDeliveryLog, recordMayDecide } from '../decide/delivery-gap.js';
import type { RepoApi } from '../github/repo-api.js';
import type { WorkflowRunSummary } from '../github/repo-answers.js';
import type { BranchRuns } from '../ledger/branch-runs.js';
import type { RepoConfig, RunFacts, RunMessage } from '../model.js';
import type { Log } from '../obs/types.js';
import type { WorkerGitHub } from './context.js';

/**
 * Looks for reasons a re-run would be wasted. A branch run: a newer run of the same workflow on
 * the branch, from the newest run the intake recorded, or one listing when the record cannot
 * answer or a delivery may have been lost since the run started (`gap`, GitHub's delivery log,
 * read beside the job listing; `noted` hears what it said). A pull-request run: a newer run of the same workflow for the same head sha or branch,
 * or a pull request that closed or moved on.
 */
export async function findStaleness(
  api: RepoApi,
  msg: RunMessage,
  run: RunFacts,
  cfg: Pick<RepoConfig, 'staleCheck'>,
  branchRuns?: Pick<BranchRuns, 'newest'>,
  gap?: BranchGap,
): Promise<StaleFacts> {
  const rule = branchRule(cfg, msg);
  if (rule && msg.headBranch !== null) return branchStaleness(api, msg, run, rule, msg.headBranch, branchRuns, gap);
  const runs = await api.workflowRuns(
    run.workflowId,
    msg.headBranch ? { branch: msg.headBranch } : { headSha: msg.headSha },
  );
  const newer = runs.find(
    (r) =>
      r.id !== msg.runId &&
      Date.parse(r.createdAt) > Date.parse(run.createdAt) &&
      (r.headSha === msg.headSha || (msg.headBranch !== null && r.headBranch === msg.headBranch)),
  );
  if (newer) return { newerRunId: newer.id };
  for (const number of msg.pullRequests.slice(0, 3)) {
    const pr = await api.pullRequest(number);
    if (!pr.open) return { pullRequestClosed: number };
    if (pr.headSha !== msg.headSha) return { pullRequestMovedOn: number };
  }
  return {};
}

async function branchStaleness(
  api: RepoApi,
  msg: RunMessage,
  run: RunFacts,
  rule: SupersededBy,
  branch: string,
  branchRuns: Pick<BranchRuns, 'newest'> | undefined,
  gap: BranchGap | undefined,
): Promise<StaleFacts> {
  const key = { installationId: msg.installationId, repoId: msg.repository.id, workflowId: run.workflowId, branch };
  const recorded = msg.runNumber === undefined ? undefined : await branchRuns?.newest(key);
  const self =
    msg.runNumber === undefined ? undefined : { runId: msg.runId, runNumber: msg.runNumber, headSha: msg.headSha };
  let answer = self ? fromNewestRecorded(self, recorded, rule) : ({ kind: 'list' } as const);
  let decidedBy: 'record' | 'listing' = 'record';
  // At the pass after a wait, a run the record cannot place keeps the listing's answer from before the wait.
  if (answer.kind === 'list' && gap?.unrecorded === 'kept') {
    gap.stood?.();
    return {};
  }
  // Only `current` can be wrong after a lost delivery: a newer run recorded supersedes either way.
  if (answer.kind === 'current' && gap) {
    const said = await gap.read;
    gap.noted?.(said);
    if (!recordMayDecide(said)) answer = { kind: 'list' };
  }
  if (answer.kind === 'list') {
    decidedBy = 'listing';
    const listed = await api.workflowRuns(run.workflowId, { branch });
    const own = listed.filter((r) => ownBranchRun(r, msg, branch)).map(asBranchRun);
    answer = fromListed(self ?? sinceCreated(msg, run, listed), own, rule);
  }
  return answer.kind === 'stale'
    ? { newerRunId: answer.newer.runId, newerOnBranch: { branch, headSha: answer.newer.headSha }, decidedBy }
    : { decidedBy };
}

/** What GitHub's delivery log says since the run started (already being read), and who hears it. */
export interface BranchGap {
  readonly read: Promise<DeliveryGap>;
  readonly noted?: (gap: DeliveryGap) => void;
  /**
   * `kept` at the pass after a wait: a run the record cannot place is not listed again (the
   * check before the wait listed it); a record that names it current is checked against the log.
   */
  readonly unrecorded?: 'list' | 'kept';
  /** Hears that the check before the wait stood. */
  readonly stood?: () => void;
}

/** A branch run whose record may call it current: one with a number and a start, not a pull request's. */
const readsDeliveryLog = (msg: RunMessage): boolean =>
  msg.headBranch !== null &&
  msg.runNumber !== undefined &&
  msg.createdAt !== undefined &&
  !isPullRequestEvent(msg.event);

/**
 * Starts reading the App's delivery log since the run started (a branch run's only), so that it
 * goes beside the round trip the caller makes next. A failed read answers `unread`: one listing
 * decides, the safe direction.
 */
export function startGapRead(
  msg: RunMessage,
  read: WorkerGitHub['deliveryLog'] | undefined,
): Promise<DeliveryGap> | undefined {
  if (!readsDeliveryLog(msg)) return undefined;
  if (!read) return noDeliveryLog();
  const scope = {
    installationId: msg.installationId,
    repositoryId: msg.repository.id,
    sinceMs: Date.parse(msg.createdAt!),
  };
  return read(scope).catch((err: Error) => ({ kind: 'unread', reason: err.message }) as const);
}

/** The gap being read, with the log line that says what it showed. */
export const branchGap = (
  read: Promise<DeliveryGap>,
  msg: RunMessage,
  log: Log,
  unrecorded: BranchGap['unrecorded'] = 'list',
): BranchGap => ({
  read,
  noted: (g) => noteGap(g, msg, log),
  unrecorded,
  stood: () =>
    log.info('the record cannot place the run at its turn: the staleness check before the wait stands', {
      run_id: msg.runId,
      branch: msg.headBranch,
    }),
});

function noteGap(gap: DeliveryGap, msg: RunMessage, log: Log): void {
  const line = {
    run_id: msg.runId,
    repository: `${msg.repository.owner}/${msg.repository.name}`,
    branch: msg.headBranch,
  };
  if (gap.kind === 'missed')
    log.warn('a workflow_run delivery failed since the run started; one listing of the branch decides', {
      ...line,
      failed_delivery: gap.guid,
      status_code: gap.statusCode,
      delivered_at: gap.deliveredAt,
    });
  if (gap.kind === 'unread')
    log.warn('delivery log not read; one listing of the branch decides', { ...line, error: gap.reason });
  if (gap.kind === 'no_log')
    log.info('no delivery log under GITHUB_TOKEN credentials; the branch record decides as before', line);
}

/** A run of the repository's own branch: not a fork's pull request from a branch of that name. */
const ownBranchRun = (r: WorkflowRunSummary, msg: RunMessage, branch: string): boolean =>
  r.headBranch === branch && r.headRepositoryId === msg.repository.id && isBranchEvent(r.event);

const asBranchRun = (r: WorkflowRunSummary): BranchRun => ({ runId: r.id, runNumber: r.runNumber, headSha: r.headSha });

/**
 * This run's number for a message that predates it: from the listing, or else one below every
 * run listed as created after it.
 */
function sinceCreated(msg: RunMessage, run: RunFacts, listed: readonly WorkflowRunSummary[]): BranchRun {
  const found = listed.find((r) => r.id === msg.runId);
  const after = listed.filter((r) => Date.parse(r.createdAt) > Date.parse(run.createdAt)).map((r) => r.runNumber);
  const runNumber = found?.runNumber ?? (after.length > 0 ? Math.min(...after) - 1 : Number.MAX_SAFE_INTEGER);
  return { runId: msg.runId, runNumber, headSha: msg.headSha };
}
