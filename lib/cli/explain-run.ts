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

/**
 * Runs the worker's own evaluation on a live run with `dry_run` forced on: the same
 * configuration, staleness, classifier and decision, but no ledger and no write to GitHub.
 */
export async function explainRun(live: LiveRun, deps: ExplainDeps): Promise<Explanation> {
  const msg = live.message;
  const { owner, name } = msg.repository;
  const notes: string[] = [];
  const log: Log = {
    debug: () => undefined,
    info: () => undefined,
    warn: (m, x) => notes.push(`${m}${x?.error ? `: ${String(x.error)}` : ''}`),
    error: (m, x) => notes.push(`${m}${x?.error ? `: ${String(x.error)}` : ''}`),
  };
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
    log,
    metrics: noMetrics,
  };
  const base = {
    repository: `${owner}/${name}`,
    runId: msg.runId,
    attempt: msg.runAttempt,
    latestAttempt: live.latestAttempt,
    url: live.htmlUrl,
    status: live.status,
    conclusion: live.conclusion,
    configOrigin: cfg.origin,
    ...(cfg.error && { configError: cfg.error }),
    signals: deps.signals ? `read from ${deps.signalsFrom}` : 'not consulted (pass --table or --stack)',
    notes,
  };

  let decision: DecisionKind;
  let reason: string;
  let jobs: readonly JobFacts[] | undefined;
  let verdicts: readonly JobVerdict[] | undefined;
  let staleness: string | undefined;
  if (live.status === 'completed' && live.conclusion !== 'failure' && live.conclusion !== 'cancelled') {
    decision = 'ignored';
    reason = `the run concluded ${live.conclusion}; the intake acts only on failure or cancelled`;
  } else {
    const allow = deps.settings.repositoryAllowList;
    const ev = await evaluateRun(
      { message: msg, config, ...(allow && { repositoryAllowed: allow.includes(base.repository) }) },
      api,
      evalDeps,
    );
    if (ev.step.kind !== 'final') throw new Error('dry_run is forced, yet the decision asked for a re-run');
    ({ decision, reason } = ev.step);
    jobs = ev.facts.jobs;
    verdicts = ev.facts.verdicts;
    staleness = stalenessSource(ev.facts.stale?.decidedBy);
  }
  const verdictsDecided = verdicts !== undefined;
  if (live.status === 'completed') {
    jobs ??= await api.listAttemptJobs(msg.runId, msg.runAttempt);
    verdicts ??= (
      await gatherVerdicts(candidateJobs(jobs, msg, config), {
        ...evalDeps,
        api,
        owner: { login: owner, installationId: msg.installationId },
        extraPatterns: config.extraPatterns,
      })
    ).verdicts;
  }
  const byId = new Map((verdicts ?? []).map((v) => [v.job.id, v]));
  const lines = (jobs ?? []).map((j) => jobLine(j, byId.get(j.id)));
  // GitHub's own platform failures are their own evidence family, with their own setting.
  if (verdicts?.some((v) => v.verdict === 'infra' && v.source === 'platform')) {
    notes.push(`GitHub platform failure seen; platform_errors: ${platformErrorsMode(cfg.config)}`);
  }
  // dry_run was forced: it means "would re-run" unless the configuration itself says dry_run.
  const wouldRerun = decision === 'dry_run' && !cfg.config.dryRun;
  const mergeQueue = wouldRerun
    ? await previewMergeGroup(msg, cfg.config, api, reason.replace(/^would re-run: /, ''))
    : undefined;
  const recorded = deps.outcomes && (await recordedOutcomes(deps.outcomes, msg, live.latestAttempt));
  const timing = verdicts && recoveryTiming(verdicts, Date.now(), false, false);
  const recovery =
    timing &&
    `lost at ${timing.lostAt} (exact signal); the lost job ended ${timing.secondsWaitedForGitHub ?? '—'} s after it; ` +
      `early_recovery: ${earlyRecoveryMode(cfg.config)}`;
  return {
    ...base,
    ...(recovery && { recovery }),
    ...(staleness && { staleness }),
    decision,
    reason,
    wouldRerun,
    ...(mergeQueue && { mergeQueue }),
    verdictsDecided,
    jobs: lines,
    requests: api.requests,
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
