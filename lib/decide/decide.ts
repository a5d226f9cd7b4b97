import { globMatch } from '../util/glob.js';
import { branchRule, isPullRequestEvent } from './branch-staleness.js';
import { type BreakerFacts, pauseReason } from './breaker.js';
import type { DecisionKind, JobFacts, JobVerdict, PlatformErrors, RepoConfig, RunFacts, RunMessage } from '../model.js';

/** Why a run is stale; each field set only when that check ran and found it. */
export interface StaleFacts {
  readonly newerRunId?: number;
  /** Set when a newer run of the branch superseded a branch run: the newer run's commit. */
  readonly newerOnBranch?: { readonly branch: string; readonly headSha: string };
  /**
   * Which source decided a branch run's currency: the intake's record (with GitHub's delivery log
   * clean since the run started, where there is one) or one listing of the branch's runs.
   */
  readonly decidedBy?: 'record' | 'listing';
  readonly pullRequestClosed?: number;
  readonly pullRequestMovedOn?: number;
}

/** The installation's retry budget for the hour, and the repository's share of it when there are shares. */
export interface BudgetFacts {
  readonly limit: number;
  readonly used: number;
  /** The run's repository's share of the hour, when the budget has shares. */
  readonly repository?: { readonly limit: number; readonly used: number };
}

/** Everything the decision depends on. Absent facts have not been gathered yet. */
export interface DecisionFacts {
  readonly message: RunMessage;
  readonly config: RepoConfig;
  /** False when the deployment restricts repositories and this one is not listed. */
  readonly repositoryAllowed?: boolean;
  readonly run?: RunFacts;
  readonly stale?: StaleFacts;
  readonly budget?: BudgetFacts;
  readonly jobs?: readonly JobFacts[];
  readonly verdicts?: readonly JobVerdict[];
  /** Read only when the run would be re-run. */
  readonly breaker?: BreakerFacts;
  /** reprise ended this attempt early (early recovery): read with the verdicts, for the time to recovery. */
  readonly endedByReprise?: boolean;
}

/** The decision's answer: final, a fact it needs first, a wait, or a re-run to make. */
export type DecisionStep =
  | { readonly kind: 'final'; readonly decision: DecisionKind; readonly reason: string }
  | { readonly kind: 'need'; readonly what: FactName }
  /** Not now: the run waits until `untilMs` and is decided again then. */
  | { readonly kind: 'wait'; readonly untilMs: number; readonly reason: string }
  | {
      readonly kind: 'rerun';
      readonly reason: string;
      /** True when every candidate ended cancelled: GitHub may see no failed job to re-run. */
      readonly cancelledOnly: boolean;
      readonly evidence: 'exact' | 'text';
    };

/** The facts the decision asks for, one at a time, in the order it needs them. */
export type FactName = 'run' | 'stale' | 'budget' | 'jobs' | 'verdicts' | 'breaker';

const final = (decision: DecisionKind, reason: string): DecisionStep => ({ kind: 'final', decision, reason });

/** Jobs of the finished attempt that ended failure or cancelled, minus the configured ignored ones. */
export function candidateJobs(jobs: readonly JobFacts[], msg: RunMessage, cfg: RepoConfig): JobFacts[] {
  return jobs.filter(
    (j) =>
      j.runAttempt === msg.runAttempt &&
      (j.conclusion === 'failure' || j.conclusion === 'cancelled') &&
      !cfg.ignoreJobs.some((g) => globMatch(g, j.name)),
  );
}

/** What a job lost to GitHub's own platform failure gets: `rerun` unless the settings say `leave`. */
export const platformErrorsMode = (cfg: RepoConfig): PlatformErrors => cfg.platformErrors ?? 'rerun';

/**
 * Whether the staleness check applies to this run: `pull_request` checks pull-request runs,
 * `branch` (the default) branch runs too (merge groups excepted), `all` every run.
 */
export const staleCheckApplies = (cfg: RepoConfig, msg: RunMessage): boolean => {
  if (cfg.staleCheck === 'off') return false;
  if (cfg.staleCheck === 'all' || isPullRequestEvent(msg.event)) return true;
  return branchRule(cfg, msg) !== undefined;
};

/** Why a run is stale, in words, or undefined when it is not. */
export function staleReason(s: StaleFacts, msg: RunMessage): string | undefined {
  if (s.newerRunId && s.newerOnBranch) {
    const { branch, headSha } = s.newerOnBranch;
    const what = headSha === msg.headSha ? 'the same commit' : `commit ${headSha.slice(0, 7)}`;
    return `a newer run ${s.newerRunId} of the same workflow on branch ${branch} is for ${what}: re-running ${msg.headSha.slice(0, 7)} would join its concurrency group`;
  }
  if (s.newerRunId) return `a newer run ${s.newerRunId} exists for the same workflow`;
  if (s.pullRequestClosed) return `pull request #${s.pullRequestClosed} is closed`;
  if (s.pullRequestMovedOn) return `pull request #${s.pullRequestMovedOn} head moved past ${msg.headSha.slice(0, 7)}`;
  return undefined;
}

/** Why a run is left alone when its installation's retry budget is spent. */
export const budgetSpentReason = (b: BudgetFacts): string =>
  b.used < b.limit && b.repository && b.repository.used >= b.repository.limit
    ? `repository's share of the installation retry budget spent: ${b.repository.used} of ${b.repository.limit} ` +
      `this hour (the installation's: ${b.used} of ${b.limit}); other repositories go on`
    : `installation retry budget spent: ${b.used} of ${b.limit} this hour`;

const budgetSpent = (b: BudgetFacts): boolean =>
  b.limit > 0 && (b.used >= b.limit || (b.repository !== undefined && b.repository.used >= b.repository.limit));

/**
 * The decision for one run attempt, checks in a fixed order (docs/design.md, "Worker"). Pure: given partial
 * facts it names the next fact it needs, so the caller fetches only what the decision uses.
 */
export function decide(f: DecisionFacts): DecisionStep {
  const { message: msg, config: cfg } = f;
  if (f.repositoryAllowed === false) return final('ignored', 'repository is not in the deployment allow-list');
  if (!cfg.enabled) return final('ignored', cfg.disabledReason ?? 'disabled by configuration (enabled: false)');
  if (cfg.workflows && !cfg.workflows.includes(msg.workflow.name)) {
    return final('ignored', `workflow "${msg.workflow.name}" is not listed in workflows`);
  }
  const run = f.run;
  if (!run) return { kind: 'need', what: 'run' };
  if (run.runAttempt > msg.runAttempt) {
    return final('duplicate', `attempt ${msg.runAttempt} was already re-run: the run is at attempt ${run.runAttempt}`);
  }
  if (run.status !== 'completed') return final('run_incomplete', `run status is ${run.status}`);

  if (staleCheckApplies(cfg, msg)) {
    if (!f.stale) return { kind: 'need', what: 'stale' };
    const stale = staleReason(f.stale, msg);
    if (stale) return final('stale', stale);
  }
  if (run.runAttempt >= cfg.maxAttempts) {
    return final('attempt_cap', `attempt ${run.runAttempt} reached max_attempts ${cfg.maxAttempts}`);
  }
  // The budget is an optional hard ceiling (0: none): volume alone waits for its re-run slot instead.
  if (!f.budget) return { kind: 'need', what: 'budget' };
  if (budgetSpent(f.budget)) {
    return final('budget_exhausted', budgetSpentReason(f.budget));
  }

  if (!f.jobs) return { kind: 'need', what: 'jobs' };
  const candidates = candidateJobs(f.jobs, msg, cfg);
  if (candidates.length === 0) return final('no_candidate_jobs', 'no job of this attempt failed or was cancelled');
  if (!f.verdicts) return { kind: 'need', what: 'verdicts' };
  const step = judge(f.verdicts, candidates, run, cfg);
  if (step.kind !== 'rerun') return step;
  // Re-runs that keep dying pause the installation's re-runs: this run waits, it is not dropped.
  if (!f.breaker) return { kind: 'need', what: 'breaker' };
  if (f.breaker.openUntil !== null)
    return { kind: 'wait', untilMs: f.breaker.openUntil, reason: pauseReason(f.breaker) };
  return step;
}

function judge(verdicts: readonly JobVerdict[], candidates: JobFacts[], run: RunFacts, cfg: RepoConfig): DecisionStep {
  const blocking = verdicts.find((v) => v.veto === 'person' || v.veto === 'concurrency');
  if (blocking) {
    const who = blocking.veto === 'person' ? 'a person cancelled the run' : 'superseded by concurrency';
    return final('vetoed', `${who} (job "${blocking.job.name}")`);
  }
  const genuine = verdicts.find((v) => v.verdict === 'genuine' || v.veto === 'timeout');
  if (genuine) {
    const what = genuine.veto === 'timeout' ? 'timed out' : 'failed for a real reason';
    return final('genuine_failure', `job "${genuine.job.name}" ${what}: ${genuine.evidence}`);
  }
  // Evidence left unread could hold a real failure: the safe direction is to leave the run alone.
  const cut = verdicts.find((v) => v.cutShort);
  if (cut) return final('no_infra_evidence', `job "${cut.job.name}": ${cut.evidence}; the run is left alone`);
  const infra = verdicts.filter((v) => v.verdict === 'infra');
  const platform = infra.find((v) => v.source === 'platform');
  if (platform && platformErrorsMode(cfg) === 'leave') {
    return final(
      'no_infra_evidence',
      `job "${platform.job.name}" hit a GitHub platform failure (${platform.evidence}) and platform_errors is leave`,
    );
  }
  if (infra.length === 0) {
    return final(
      'no_infra_evidence',
      'only cancelled jobs without runner-loss evidence (add a pattern to extra_patterns)',
    );
  }
  const exact = infra.some((v) => v.source === 'signal');
  if (!exact && cfg.requireExactSignal) {
    return final('no_infra_evidence', 'text evidence only and require_exact_signal is on');
  }
  if (!exact && run.runAttempt >= cfg.textOnlyMaxAttempts) {
    return final(
      'attempt_cap',
      `attempt ${run.runAttempt} reached text_only_max_attempts ${cfg.textOnlyMaxAttempts} (no exact signal)`,
    );
  }
  const names = infra.map((v) => v.job.name).join(', ');
  const onPlatform = platform ? ` (GitHub platform failure: ${platform.evidence})` : '';
  const reason = `${infra.length} job(s) lost to infrastructure: ${names}${onPlatform}`;
  if (cfg.dryRun) return final('dry_run', `would re-run: ${reason}`);
  const cancelledOnly = candidates.every((j) => j.conclusion === 'cancelled');
  return { kind: 'rerun', reason, cancelledOnly, evidence: exact ? 'exact' : 'text' };
}

/** What a run that earned a re-run does about its slot in the installation's pace. */
export type PaceSlotStep =
  | { readonly kind: 'go' }
  | { readonly kind: 'wait'; readonly until: number }
  | { readonly kind: 'final'; readonly decision: 'expired'; readonly reason: string };

/**
 * A re-run goes at its reserved slot, waits for it, or, when no slot was free before
 * `waitingSince + maxWaitMs` (so none was reserved), is expired: the run is left alone.
 */
export function paceSlotStep(t: {
  readonly slotAt: number | undefined;
  readonly now: number;
  readonly waitingSince: number;
  readonly maxWaitMs: number;
}): PaceSlotStep {
  if (t.slotAt === undefined) {
    const minutes = Math.round(t.maxWaitMs / 60_000);
    return {
      kind: 'final',
      decision: 'expired',
      reason: `no re-run turn free within max_wait (${minutes} min) of the installation's pace; the run is left alone`,
    };
  }
  return t.slotAt <= t.now ? { kind: 'go' } : { kind: 'wait', until: t.slotAt };
}
