/**
 * Judges one failed attempt of the past as reprise would have when it completed: the worker's
 * own `evaluateRun` and `decide`, with `dry_run` forced, over facts as of that moment (the run
 * at that attempt, the newer runs listed by then) rather than as the run stands today.
 */
import type { RepoConfig } from '../config/repo-config.js';
import { candidateJobs, type StaleFacts } from '../decide/decide.js';
import type { RepoApi } from '../github/repo-api.js';
import type { DecisionKind, EvidenceFamily, JobFacts, JobVerdict, RunFacts, RunMessage } from '../model.js';
import { type EvaluationDeps, evaluateRun } from '../worker/evaluate.js';
import { gatherVerdicts } from '../worker/gather-verdicts.js';
import type { AttemptRecord, ListedRun } from './history.js';

/** One job of an attempt as explain and the backtest show it: what GitHub says of it, and its verdict. */
export interface JobLine {
  readonly name: string;
  readonly conclusion: string | null;
  readonly runner: string | null;
  /** null when the job is not a candidate (it passed, or is ignored by configuration). */
  readonly verdict: string | null;
  readonly source: string | null;
  /** The text shown for the verdict (display only: `family` and `pattern` are its data). */
  readonly evidence: string | null;
  /** The evidence family that decided the verdict; null or absent without one (a cache of an older version). */
  readonly family?: EvidenceFamily | null;
  /** The name of the pattern that matched, when one did. */
  readonly pattern?: string | null;
}

/** A job's line in a backtest: its verdict, with the minutes it ran (what a re-run of failed jobs keeps). */
export interface JudgedJob extends JobLine {
  /** The job's running time in this attempt, in minutes; null without times. */
  readonly minutes: number | null;
}

/** A job's line, with its verdict when it was a candidate. */
export const jobLine = (j: JobFacts, v: JobVerdict | undefined): JobLine => ({
  name: j.name,
  conclusion: j.conclusion,
  runner: j.runnerName,
  verdict: v?.verdict ?? null,
  source: v?.source ?? null,
  evidence: v?.evidence ?? null,
  family: v?.family ?? null,
  pattern: v?.pattern ?? null,
});

/** What the worker would have decided for a past attempt, with every job's verdict: what the cache keeps. */
export interface Judgement {
  readonly decision: DecisionKind;
  readonly reason: string;
  /** True when the worker would have called rerun-failed-jobs (the configuration not itself dry_run). */
  readonly wouldRerun: boolean;
  readonly jobs: readonly JudgedJob[];
  /** True when GitHub no longer shows some job's log or annotations (retention). */
  readonly evidenceGone: boolean;
}

/** What judging a past attempt reads with: the repository's API, its configuration and the worker's evaluation. */
export interface JudgeContext {
  readonly api: RepoApi;
  readonly config: RepoConfig;
  readonly installationId: number | null;
  readonly repositoryAllowed?: boolean;
  readonly deps: EvaluationDeps;
}

/** The queue message the intake would have built when this attempt completed. */
export function messageFor(run: ListedRun, a: AttemptRecord, installationId: number | null): RunMessage {
  return {
    v: 1,
    deliveryId: 'reprise-backtest',
    installationId,
    repository: run.repository,
    runId: run.id,
    runAttempt: a.number,
    workflow: { id: run.workflowId, name: run.workflowName, path: run.workflowPath },
    event: run.event,
    headSha: run.headSha,
    headBranch: run.headBranch,
    conclusion: a.conclusion === 'cancelled' ? 'cancelled' : 'failure',
    pullRequests: run.pullRequests,
    createdAt: run.createdAt,
  };
}

/**
 * The staleness the worker would have found then, from the listing already read: a newer run of
 * the same workflow for the same head sha or branch, created before the attempt completed.
 * Pull requests' states at that time are not in the history and are not judged.
 */
export function staleThen(run: ListedRun, a: AttemptRecord, listed: readonly ListedRun[]): StaleFacts {
  const created = Date.parse(run.createdAt);
  const done = Date.parse(a.completedAt);
  const newer = listed.find(
    (r) =>
      r.id !== run.id &&
      r.repository.id === run.repository.id &&
      r.workflowId === run.workflowId &&
      Date.parse(r.createdAt) > created &&
      Date.parse(r.createdAt) <= done &&
      (r.headSha === run.headSha || (run.headBranch !== null && r.headBranch === run.headBranch)),
  );
  return newer ? { newerRunId: newer.id } : {};
}

const minutesOf = (j: JobFacts): number | null => {
  const start = j.startedAt ? Date.parse(j.startedAt) : NaN;
  const end = j.completedAt ? Date.parse(j.completedAt) : NaN;
  return Number.isFinite(start) && Number.isFinite(end) && end >= start ? (end - start) / 60_000 : null;
};

/** GitHub no longer shows the job's evidence: its annotations, or its log (retention). */
const gone = (v: JobVerdict): boolean => v.source === 'unreadable' || v.logUnavailable === 'missing';

/**
 * Judges one failed attempt of the past as the worker would have when it completed: its own
 * evaluation and decision, dry_run forced, over the run as of that attempt.
 */
export async function judgeAttempt(
  run: ListedRun,
  a: AttemptRecord,
  stale: StaleFacts,
  ctx: JudgeContext,
): Promise<Judgement> {
  const message = messageFor(run, a, ctx.installationId);
  const config = { ...ctx.config, dryRun: true, report: 'log' as const };
  const asThen: RunFacts = {
    id: run.id,
    status: 'completed',
    conclusion: a.conclusion,
    runAttempt: a.number,
    event: run.event,
    headSha: run.headSha,
    headBranch: run.headBranch,
    workflowId: run.workflowId,
    createdAt: run.createdAt,
  };
  const ev = await evaluateRun(
    {
      message,
      config,
      run: asThen,
      stale,
      // Today's hourly budget and breaker say nothing of that hour: neither holds a past run back.
      budget: { limit: 0, used: 0 },
      breaker: { openUntil: null, outcomes: 0, lostAgain: 0, windowMs: 0 },
      ...(ctx.repositoryAllowed !== undefined && { repositoryAllowed: ctx.repositoryAllowed }),
    },
    ctx.api,
    ctx.deps,
  );
  if (ev.step.kind !== 'final') throw new Error('dry_run is forced, yet the decision asked for a re-run');
  const { decision, reason } = ev.step;
  // As explain does: a decision settled before the jobs were read still shows each job's verdict.
  const jobs = ev.facts.jobs ?? (await ctx.api.listAttemptJobs(run.id, a.number));
  const verdicts =
    ev.facts.verdicts ??
    (
      await gatherVerdicts(candidateJobs(jobs, message, config), {
        ...ctx.deps,
        api: ctx.api,
        owner: { login: message.repository.owner, installationId: message.installationId },
        extraPatterns: config.extraPatterns,
      })
    ).verdicts;
  const byId = new Map(verdicts.map((v) => [v.job.id, v]));
  return {
    decision,
    reason,
    wouldRerun: decision === 'dry_run' && !ctx.config.dryRun,
    jobs: jobs
      .filter((j) => j.runAttempt === a.number || j.runAttempt === 0)
      .map((j): JudgedJob => ({ ...jobLine(j, byId.get(j.id)), minutes: minutesOf(j) })),
    evidenceGone: verdicts.some(gone),
  };
}
