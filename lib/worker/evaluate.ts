/**
 * Evaluating a run: gathers the facts the pure `decide()` asks for until it is final or asks for
 * a re-run. It reads GitHub and the ledger's counters and writes nothing, so the CLI's `explain`
 * uses `evaluateRun` as it is; the worker's first look at an attempt reads its configuration
 * first (`evaluateAfresh`).
 */
import type { RepoConfig } from '../config/repo-config.js';
import type { DecisionFacts, DecisionStep, FactName } from '../decide/decide.js';
import { candidateJobs, decide } from '../decide/decide.js';
import type { BreakerFacts } from '../decide/breaker.js';
import { runFromLatestJobs } from '../decide/run-from-jobs.js';
import { configErrorNote } from '../github/repo-config-source.js';
import type { JobListing } from '../github/job-listing.js';
import type { RepoApi } from '../github/repo-api.js';
import type { JobFacts, JobVerdict, RunMessage, SignalWindow } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { RerunBreaker } from '../ledger/outcomes.js';
import type { RetryBudget } from '../ledger/budget.js';
import type { BranchRuns } from '../ledger/branch-runs.js';
import type { RunRecoveries } from '../ledger/run-recoveries.js';
import type { EvidenceSources } from './gather-verdicts.js';
import { gatherVerdicts } from './gather-verdicts.js';
import { branchGap, findStaleness, startGapRead } from './staleness.js';
import { type DeliveryGap } from '../decide/delivery-gap.js';
import type { DecisionLine, DecisionSettings, WorkerContext, WorkerGitHub, WorkerStores } from './context.js';

/** What evaluating a run reads: no ledger, and nothing that writes to GitHub. */
export interface EvaluationDeps {
  readonly budget?: RetryBudget;
  /** Pauses an installation's re-runs while they keep being lost; never paused when absent. */
  readonly breaker?: RerunBreaker;
  readonly signals?: EvidenceSources['signals'];
  readonly signalWindow: SignalWindow;
  readonly logHosts: readonly string[];
  readonly logWindowBytes: number;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** The run's latest jobs, already asked for (or, at the pass after a wait, the cached ones when GitHub said nothing changed). */
  readonly latest?: Promise<JobListing>;
  /** The newest run of each branch, as the intake recorded it; a listing answers when absent. */
  readonly branchRuns?: Pick<BranchRuns, 'newest'>;
  /** Early ends reprise made: a cancel note on an attempt it ended is its own. */
  readonly recoveries?: Pick<RunRecoveries, 'endOf'>;
  /**
   * What GitHub's delivery log says since the run started, read beside the job listing: whether
   * the branch record may call the run current. Absent: the record decides alone.
   */
  readonly deliveryGap?: Promise<DeliveryGap>;
  /** `kept` at the pass after a wait: a run the record cannot place keeps the check made before the wait. */
  readonly unrecorded?: 'list' | 'kept';
}

/** What evaluating a run found: the step `decide()` reached and the facts and verdicts behind it. */
export interface Evaluation {
  /** The decision, or the re-run it asks for. */
  readonly step: Exclude<DecisionStep, { kind: 'need' }>;
  readonly facts: DecisionFacts;
  readonly verdicts: JobVerdict[];
  readonly unexamined: number;
  /**
   * The ETag of the run's latest jobs when the run was read off them and one page held them: the
   * pass after a wait lists them again on the condition that they changed (a 304 is free).
   */
  readonly listingEtag?: string;
}

/** What the decision knows once it is final or asks for a re-run (or, for the breaker, to wait). */
export interface Judged extends Evaluation {
  readonly config: RepoConfig;
  /** The configuration error as the decision's reason says it, and as the log line's `config_error`. */
  readonly configError?: string;
  readonly configErrorRaw?: string;
  /** What the operator's ceiling lowered in the repository's settings (REPO_MAX_ATTEMPTS_CEILING, REPO_EXTRA_PATTERNS). */
  readonly clamped?: readonly string[];
  /** GitHub requests made before a wait, when this is the pass after one. */
  readonly priorRequests: number;
  /** The App's requests (its JWT) made before a wait: counted apart, never the installation's. */
  readonly priorAppRequests?: number;
  /** The App's read of its delivery log this decision started, beside the job listing. */
  readonly deliveryGap?: Promise<DeliveryGap>;
}

/**
 * The App's requests a decision made (its delivery-log read, and those before a wait): apart from
 * `requests`, which are the installation's. The read is awaited only here, after the call.
 */
export async function appRequestsOf(judged: Pick<Judged, 'priorAppRequests' | 'deliveryGap'>): Promise<number> {
  const gap = judged.deliveryGap ? await judged.deliveryGap : undefined;
  return (judged.priorAppRequests ?? 0) + (gap?.appRequests ?? 0);
}

/** What the worker's evaluation reads: the stores of evidence and counters, no claim. */
export interface EvaluationContext {
  readonly stores: Pick<WorkerStores, 'budget' | 'outcomes' | 'signals' | 'branchRuns' | 'recoveries'>;
  readonly settings: Pick<DecisionSettings, 'signalWindow' | 'logHosts' | 'logWindowBytes'>;
  readonly obs: Pick<WorkerContext['obs'], 'log' | 'metrics'>;
}

/** The evaluation's dependencies from the worker's context. */
export const evaluationDeps = (ctx: EvaluationContext): EvaluationDeps => ({
  budget: ctx.stores.budget,
  breaker: ctx.stores.outcomes,
  signals: ctx.stores.signals,
  branchRuns: ctx.stores.branchRuns,
  recoveries: ctx.stores.recoveries,
  signalWindow: ctx.settings.signalWindow,
  logHosts: ctx.settings.logHosts,
  logWindowBytes: ctx.settings.logWindowBytes,
  log: ctx.obs.log,
  metrics: ctx.obs.metrics,
});

/** What the first look at an attempt reads beyond an evaluation: the repository's file, the allow-list and the defaults. */
export interface AfreshContext extends EvaluationContext {
  readonly github?: Pick<WorkerGitHub, 'deliveryLog'>;
  readonly stores: EvaluationContext['stores'] & Pick<WorkerStores, 'repoConfig'>;
  readonly settings: EvaluationContext['settings'] & Pick<DecisionSettings, 'defaults' | 'repositoryAllowList'>;
}

/** The first look at an attempt: configuration, then the facts `decide()` asks for. Reads only. */
export async function evaluateAfresh(
  msg: RunMessage,
  api: RepoApi,
  ctx: AfreshContext,
  line: DecisionLine,
): Promise<Judged> {
  const { repositoryAllowList, defaults } = ctx.settings;
  const repository = `${msg.repository.owner}/${msg.repository.name}`;
  const allowed = repositoryAllowList ? repositoryAllowList.includes(repository) : undefined;
  // The configuration and the run's latest jobs are read at once: one round trip, not two.
  const latest = allowed !== false && msg.createdAt ? api.latestJobs(msg.runId) : undefined;
  latest?.catch(() => undefined);
  // Beside it, the App's delivery log since the run started, for a branch run the record may judge.
  const deliveryGap = latest ? startGapRead(msg, ctx.github?.deliveryLog) : undefined;
  const cfg = await ctx.stores.repoConfig.load(api, msg.repository.owner, msg.repository.name, defaults);
  if (cfg.error)
    ctx.obs.log.error('configuration error; failing closed', { ...line, error: cfg.error, kept: cfg.kept });
  const ev = await evaluateRun(
    { message: msg, config: cfg.config, ...(allowed !== undefined && { repositoryAllowed: allowed }) },
    api,
    { ...evaluationDeps(ctx), ...(latest && { latest }), ...(deliveryGap && { deliveryGap }) },
  );
  const configError = cfg.error ? configErrorNote(cfg) : undefined;
  if (cfg.clamped) ctx.obs.log.warn('repository settings clamped to the ceiling', { ...line, clamped: cfg.clamped });
  return {
    config: cfg.config,
    ...(configError && { configError, configErrorRaw: cfg.error }),
    ...(cfg.clamped && { clamped: cfg.clamped }),
    ...ev,
    priorRequests: 0,
    ...(deliveryGap && { deliveryGap }),
  };
}

/** Gathers the facts `decide()` asks for until it is final or asks for a re-run. Reads only. */
export async function evaluateRun(start: DecisionFacts, api: RepoApi, deps: EvaluationDeps): Promise<Evaluation> {
  let facts = start;
  // Verdicts kept from before a wait are not gathered again.
  const noted: Noted = { verdicts: [...(start.verdicts ?? [])], unexamined: 0 };
  for (;;) {
    const step = decide(facts);
    if (step.kind !== 'need') {
      const { verdicts, unexamined, listingEtag } = noted;
      return { step, facts, verdicts, unexamined, ...(listingEtag && { listingEtag }) };
    }
    facts = await gather(step.what, facts, api, deps, facts.config, noted);
  }
}

/** What gathering learns beside the facts: the verdicts' detail and the listing's ETag. */
interface Noted {
  verdicts: JobVerdict[];
  unexamined: number;
  listingEtag?: string;
}

/** One fact `decide()` asked for, read from GitHub or the ledger's counters. */
async function gather(
  what: FactName,
  facts: DecisionFacts,
  api: RepoApi,
  deps: EvaluationDeps,
  config: RepoConfig,
  noted: Noted,
): Promise<DecisionFacts> {
  const msg = facts.message;
  switch (what) {
    case 'run': {
      const { etag, ...read } = await readRun(msg, api, deps.latest);
      if (etag) noted.listingEtag = etag;
      return { ...facts, ...read };
    }
    case 'stale': {
      const gap = deps.deliveryGap && branchGap(deps.deliveryGap, msg, deps.log, deps.unrecorded);
      return { ...facts, stale: await findStaleness(api, msg, facts.run!, config, deps.branchRuns, gap) };
    }
    case 'budget':
      return {
        ...facts,
        budget: deps.budget ? await deps.budget.usage(msg.installationId, msg.repository.id) : { limit: 0, used: 0 },
      };
    case 'jobs':
      return { ...facts, jobs: await api.listAttemptJobs(msg.runId, msg.runAttempt) };
    case 'breaker':
      return { ...facts, breaker: await readBreaker(msg, deps) };
    case 'verdicts':
      return gatherJobVerdicts(facts, api, deps, config, noted);
  }
}

/** The breaker over the run's repository and installation; one that just opened is logged and counted. */
async function readBreaker(msg: RunMessage, deps: EvaluationDeps): Promise<BreakerFacts> {
  if (!deps.breaker) return { openUntil: null, outcomes: 0, lostAgain: 0, windowMs: 0 };
  const repository = { id: msg.repository.id, name: `${msg.repository.owner}/${msg.repository.name}` };
  const { tripped, ...breaker } = await deps.breaker.state(msg.installationId, repository);
  if (tripped) {
    const own = breaker.scope?.kind === 'repository';
    deps.log.warn(`breaker opened: automatic re-runs of this ${own ? 'repository' : 'installation'} pause`, {
      installation_id: msg.installationId,
      ...(own && { repository: repository.name }),
      until: new Date(breaker.openUntil ?? 0).toISOString(),
      outcomes: breaker.outcomes,
      lost_again: breaker.lostAgain,
    });
    deps.metrics.count('BreakerOpen');
  }
  return breaker;
}

/** Each candidate job's verdict, from its evidence; the detail is noted beside the facts. */
async function gatherJobVerdicts(
  facts: DecisionFacts,
  api: RepoApi,
  deps: EvaluationDeps,
  config: RepoConfig,
  noted: Noted,
): Promise<DecisionFacts> {
  const msg = facts.message;
  const candidates = candidateJobs(facts.jobs ?? [], msg, config);
  const endedByReprise = await endedEarly(msg, candidates, deps);
  const g = await gatherVerdicts(candidates, {
    ...(endedByReprise && { endedByReprise }),
    api,
    ...(deps.signals && { signals: deps.signals }),
    owner: { login: msg.repository.owner, installationId: msg.installationId },
    signalWindow: deps.signalWindow,
    extraPatterns: config.extraPatterns,
    logHosts: deps.logHosts,
    logWindowBytes: deps.logWindowBytes,
    log: deps.log,
  });
  noted.verdicts = g.verdicts;
  noted.unexamined = g.unexamined;
  const matched = g.verdicts.filter((v) => v.source === 'signal').length;
  if (matched > 0) deps.metrics.count('SignalMatched', matched);
  return { ...facts, verdicts: g.verdicts, ...(endedByReprise && { endedByReprise }) };
}

/** Whether reprise ended this attempt early; read only when a candidate ended cancelled, as such an end leaves them. */
async function endedEarly(msg: RunMessage, candidates: readonly JobFacts[], deps: EvaluationDeps): Promise<boolean> {
  if (!deps.recoveries || !candidates.some((j) => j.conclusion === 'cancelled')) return false;
  const ref = { repoId: msg.repository.id, runId: msg.runId, runAttempt: msg.runAttempt };
  return (await deps.recoveries.endOf(ref)) !== undefined;
}

/**
 * The run's state, from its latest jobs when they can answer for it: one listing then serves
 * both the run and its jobs (and its ETag is noted). Otherwise the run itself is read, and the
 * jobs later.
 */
async function readRun(
  msg: RunMessage,
  api: RepoApi,
  asked?: Promise<JobListing>,
): Promise<Pick<DecisionFacts, 'run' | 'jobs'> & { readonly etag?: string }> {
  if (msg.createdAt) {
    const { jobs, etag } = await (asked ?? api.latestJobs(msg.runId));
    const run = runFromLatestJobs(msg, jobs);
    // Jobs listed for a newer attempt are not this attempt's: the decision is duplicate anyway.
    if (run) return run.runAttempt === msg.runAttempt ? { run, jobs, ...(etag && { etag }) } : { run };
  }
  return { run: await api.getRun(msg.runId) };
}
