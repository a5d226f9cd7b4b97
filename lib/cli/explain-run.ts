import { type JobLine, jobLine } from '../backtest/judge.js';
import type { DeploymentSettings } from '../config/env.js';
import { candidateJobs, platformErrorsMode } from '../decide/decide.js';
import { earlyRecoveryMode, recoveryTiming } from '../decide/early-recovery.js';
import type { GitHubClients } from '../github/client.js';
import { RepoConfigSource } from '../github/repo-config-source.js';
import { RepoApi } from '../github/repo-api.js';
import type { BreakerFacts } from '../decide/breaker.js';
import type { RerunBreaker, RerunOutcomeLog } from '../ledger/outcomes.js';
import type { DecisionKind, JobFacts, JobVerdict } from '../model.js';
import type { Log } from '../obs/types.js';
import { noMetrics } from '../obs/memory-metrics.js';
import type { EvidenceSources } from '../worker/gather-verdicts.js';
import { gatherVerdicts } from '../worker/gather-verdicts.js';
import { type EvaluationDeps, evaluateRun } from '../worker/evaluate.js';
import { previewMergeGroup } from '../worker/requeue.js';
import type { LiveRun } from './run-lookup.js';

/** What `reprise explain` says of a run: every job with its verdict, the decision and its reason, and what the table adds. */
export interface Explanation {
  readonly repository: string;
  readonly runId: number;
  readonly attempt: number;
  readonly latestAttempt: number;
  readonly url: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly configOrigin: string;
  readonly configError?: string;
  readonly decision: DecisionKind;
  readonly reason: string;
  /** True when the worker would call rerun-failed-jobs now (explain never does); the decision is then dry_run. */
  readonly wouldRerun: boolean;
  /** False when the decision was settled before any job was examined; the verdicts are shown anyway. */
  readonly verdictsDecided: boolean;
  readonly jobs: readonly JobLine[];
  readonly signals: string;
  readonly requests: number;
  /** Recorded outcomes of every re-run attempt of the run, one line each. Read with --table. */
  readonly outcomes?: readonly string[];
  /** The installation's breaker, read with --table. */
  readonly breaker?: string;
  /** The repository's own breaker, read with --table: the decision reads it after the installation's. */
  readonly repositoryBreaker?: string;
  /** For a merge-group run that would be re-run: what the worker does about its pull request instead. */
  readonly mergeQueue?: string;
  /** With an exact signal for a lost job: when it was lost and how long the job took to end after it. */
  readonly recovery?: string;
  /** For a branch run checked for staleness: which source decided whether it is current. */
  readonly staleness?: string;
  readonly notes: readonly string[];
}

/** What explaining a run reads with: GitHub, the settings, and the table's signals and outcomes when one is named. */
export interface ExplainDeps {
  readonly clients: GitHubClients;
  readonly settings: DeploymentSettings;
  readonly signals?: EvidenceSources['signals'];
  /** Where signals come from, for the report. */
  readonly signalsFrom?: string;
  /** Recorded re-run outcomes and the breaker, from the same table. */
  readonly outcomes?: Pick<RerunOutcomeLog, 'get'> & Pick<RerunBreaker, 'look'>;
}

/** Where one breaker stands, and what its window holds. */
function breakerLine(b: BreakerFacts): string {
  const n = b.lostRepositories;
  const spread =
    b.scope?.kind !== 'repository' && n !== undefined ? ` in ${n} ${n === 1 ? 'repository' : 'repositories'}` : '';
  const window = `${b.lostAgain} of ${b.outcomes} re-run attempts lost again${spread} within ${Math.round(b.windowMs / 60_000)} min`;
  const whose = b.scope?.kind === 'repository' ? 'of this repository' : 'of every repository of the installation';
  return b.openUntil === null
    ? `closed (${window})`
    : `open until ${new Date(b.openUntil).toISOString()}: automatic re-runs ${whose} pause (${window})`;
}

/**
 * What the ledger recorded of every re-run attempt of the run (attempt 2 up to the latest),
 * and where its installation's breaker and its repository's stand.
 */
async function recordedOutcomes(
  o: NonNullable<ExplainDeps['outcomes']>,
  msg: {
    repository: { id: number; owner: string; name: string };
    runId: number;
    runAttempt: number;
    installationId: number | null;
  },
  latestAttempt: number,
): Promise<{ outcomes: string[]; breaker: string; repositoryBreaker?: string }> {
  const last = Math.max(latestAttempt, msg.runAttempt + 1);
  const attempts = Array.from({ length: Math.max(0, last - 1) }, (_, i) => i + 2);
  const recorded = await Promise.all(attempts.map((a) => o.get(msg.repository.id, msg.runId, a)));
  const lines: string[] = [];
  recorded.forEach((r, i) => {
    const a = attempts[i]!;
    if (!r) return;
    const which = a === msg.runAttempt ? ' (this attempt)' : a === msg.runAttempt + 1 ? ' (its re-run)' : '';
    lines.push(`attempt ${a} was a re-run by reprise: ${r.outcome}${which}`);
  });
  const { id, owner, name } = msg.repository;
  const [installation, repository] = await o.look(msg.installationId, { id, name: `${owner}/${name}` });
  return {
    outcomes: lines,
    breaker: breakerLine(installation!),
    ...(repository && { repositoryBreaker: breakerLine(repository) }),
  };
}

/** A log that keeps the worker's warnings and errors as the explanation's notes. */
const notesLog = (notes: string[]): Log => ({
  debug: () => undefined,
  info: () => undefined,
  warn: (m, x) => notes.push(`${m}${x?.error ? `: ${String(x.error)}` : ''}`),
  error: (m, x) => notes.push(`${m}${x?.error ? `: ${String(x.error)}` : ''}`),
});

/** The repository's configuration with dry_run forced, and the worker's evaluation around it. */
async function prepare(live: LiveRun, deps: ExplainDeps, notes: string[]) {
  const { owner, name } = live.message.repository;
  const api = new RepoApi(deps.clients, owner, name, deps.settings.graphqlUrl);
  const cfg = await new RepoConfigSource(undefined, undefined, deps.settings.repoCeiling).load(
    api,
    owner,
    name,
    deps.settings.defaults,
  );
  const config = { ...cfg.config, dryRun: true, report: 'log' as const };
  const evalDeps: EvaluationDeps = {
    ...(deps.signals && { signals: deps.signals }),
    signalWindow: deps.settings.signalWindow,
    logHosts: deps.settings.logHosts,
    logWindowBytes: deps.settings.logWindowBytes,
    log: notesLog(notes),
    metrics: noMetrics,
  };
  return { api, cfg, config, evalDeps };
}
type Prepared = Awaited<ReturnType<typeof prepare>>;

/** What the worker decides, and the jobs and verdicts it read on the way (none when settled before them). */
async function decideRun(
  live: LiveRun,
  deps: ExplainDeps,
  p: Prepared,
): Promise<{
  decision: DecisionKind;
  reason: string;
  jobs?: readonly JobFacts[];
  verdicts?: readonly JobVerdict[];
  staleness?: string;
}> {
  const msg = live.message;
  if (live.status === 'completed' && live.conclusion !== 'failure' && live.conclusion !== 'cancelled') {
    return {
      decision: 'ignored',
      reason: `the run concluded ${live.conclusion}; the intake acts only on failure or cancelled`,
    };
  }
  const allow = deps.settings.repositoryAllowList;
  const full = `${msg.repository.owner}/${msg.repository.name}`;
  const ev = await evaluateRun(
    { message: msg, config: p.config, ...(allow && { repositoryAllowed: allow.includes(full) }) },
    p.api,
    p.evalDeps,
  );
  if (ev.step.kind !== 'final') throw new Error('dry_run is forced, yet the decision asked for a re-run');
  const staleness = stalenessSource(ev.facts.stale?.decidedBy);
  return {
    decision: ev.step.decision,
    reason: ev.step.reason,
    jobs: ev.facts.jobs,
    verdicts: ev.facts.verdicts,
    ...(staleness && { staleness }),
  };
}

/** Every job of a completed attempt with its verdict, judged here when the decision settled before the jobs. */
async function judgeAll(
  live: LiveRun,
  p: Prepared,
  decided: { jobs?: readonly JobFacts[]; verdicts?: readonly JobVerdict[] },
): Promise<{ jobs?: readonly JobFacts[]; verdicts?: readonly JobVerdict[] }> {
  if (live.status !== 'completed') return decided;
  const msg = live.message;
  const jobs = decided.jobs ?? (await p.api.listAttemptJobs(msg.runId, msg.runAttempt));
  const verdicts =
    decided.verdicts ??
    (
      await gatherVerdicts(candidateJobs(jobs, msg, p.config), {
        ...p.evalDeps,
        api: p.api,
        owner: { login: msg.repository.owner, installationId: msg.installationId },
        extraPatterns: p.config.extraPatterns,
      })
    ).verdicts;
  return { jobs, verdicts };
}

/** With an exact signal for a lost job: when it was lost, how long the job took to end after it. */
function recoveryLine(verdicts: readonly JobVerdict[] | undefined, p: Prepared): string | undefined {
  const timing = verdicts && recoveryTiming(verdicts, Date.now(), false, false);
  return (
    timing &&
    `lost at ${timing.lostAt} (exact signal); the lost job ended ${timing.secondsWaitedForGitHub ?? '—'} s after it; ` +
      `early_recovery: ${earlyRecoveryMode(p.cfg.config)}`
  );
}

/**
 * Runs the worker's own evaluation on a live run with `dry_run` forced on: the same
 * configuration, staleness, classifier and decision, but no ledger and no write to GitHub.
 */
export async function explainRun(live: LiveRun, deps: ExplainDeps): Promise<Explanation> {
  const msg = live.message;
  const notes: string[] = [];
  const p = await prepare(live, deps, notes);
  const { decision, reason, staleness, ...decided } = await decideRun(live, deps, p);
  const { jobs, verdicts } = await judgeAll(live, p, decided);
  const byId = new Map((verdicts ?? []).map((v) => [v.job.id, v]));
  // GitHub's own platform failures are their own evidence family, with their own setting.
  if (verdicts?.some((v) => v.verdict === 'infra' && v.family === 'platform')) {
    notes.push(`GitHub platform failure seen; platform_errors: ${platformErrorsMode(p.cfg.config)}`);
  }
  // dry_run was forced: it means "would re-run" unless the configuration itself says dry_run.
  const wouldRerun = decision === 'dry_run' && !p.cfg.config.dryRun;
  const mergeQueue = wouldRerun
    ? await previewMergeGroup(msg, p.cfg.config, p.api, reason.replace(/^would re-run: /, ''))
    : undefined;
  const recorded = deps.outcomes && (await recordedOutcomes(deps.outcomes, msg, live.latestAttempt));
  const recovery = recoveryLine(verdicts, p);
  return {
    repository: `${msg.repository.owner}/${msg.repository.name}`,
    runId: msg.runId,
    attempt: msg.runAttempt,
    latestAttempt: live.latestAttempt,
    url: live.htmlUrl,
    status: live.status,
    conclusion: live.conclusion,
    configOrigin: p.cfg.origin,
    ...(p.cfg.error && { configError: p.cfg.error }),
    signals: deps.signals ? `read from ${deps.signalsFrom}` : 'not consulted (pass --table or --stack)',
    notes,
    ...(recovery && { recovery }),
    ...(staleness && { staleness }),
    decision,
    reason,
    wouldRerun,
    ...(mergeQueue && { mergeQueue }),
    verdictsDecided: decided.verdicts !== undefined,
    jobs: (jobs ?? []).map((j) => jobLine(j, byId.get(j.id))),
    requests: p.api.requests,
    ...recorded,
  };
}

/**
 * Which source decided a branch run's currency. Explain reads neither the intake's record nor the
 * App's delivery log, so its answer is a listing's, where the worker's may be the record's.
 */
function stalenessSource(by: 'record' | 'listing' | undefined): string | undefined {
  if (by === 'listing')
    return "one listing of the branch's runs decided whether the run is current (explain reads neither the intake's record nor GitHub's delivery log; the worker lists only when the record cannot place the run or a workflow_run delivery failed since it started)";
  if (by === 'record') return "the intake's record of the branch decided whether the run is current";
  return undefined;
}
