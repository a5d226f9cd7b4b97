import type { RepoConfig } from '../config/repo-config.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { redOutcome } from '../decide/breaker.js';
import type { DecisionFacts, DecisionStep, FactName } from '../decide/decide.js';
import { candidateJobs, decide, type TurnStep, turnStep } from '../decide/decide.js';
import { afterRerun } from '../decide/rerun-outcome.js';
import { runFromLatestJobs } from '../decide/run-from-jobs.js';
import { PausedError, RateLimitedError, TransientError, WaitForTurnError } from '../errors.js';
import type { GitHubClients } from '../github/client.js';
import { reportCheckRun } from '../github/report.js';
import { configErrorNote, type RepoConfigSource } from '../github/repo-config-source.js';
import { RepoApi } from '../github/repo-api.js';
import type { Ledger } from '../ledger/ledger.js';
import type { ClaimResult, RerunBreaker, RerunOutcomeLog, RerunPacing, RetryBudget } from '../ports.js';
import {
  type DecisionKind,
  isRerunDecision,
  type JobFacts,
  type JobVerdict,
  type RerunAnswer,
  type RunMessage,
  type SignalWindow,
} from '../model.js';
import type { Log, MetricSink } from '../ports.js';
import { decisionEvent, outcomeEvent, publishQuietly } from '../events/build.js';
import type { EventPublisher } from '../ports.js';
import type { EvidenceSources } from './gather-verdicts.js';
import { gatherVerdicts } from './gather-verdicts.js';
import { findStaleness } from './staleness.js';
import { callFailure, priorClaim } from './prior-claim.js';
import { boundedOutcome } from './bounded-outcome.js';

export interface WorkerDeps {
  readonly ledger: Ledger;
  readonly client: (installationId: number | null) => GitHubClients;
  readonly graphqlUrl: string;
  readonly configSource: RepoConfigSource;
  readonly defaults: RepoConfig;
  readonly signals?: EvidenceSources['signals'];
  readonly signalWindow: SignalWindow;
  readonly logHosts: readonly string[];
  readonly logWindowBytes: number;
  /** When set, only these `owner/name` repositories are ever re-run. */
  readonly repositoryAllowList?: readonly string[];
  readonly budget?: RetryBudget;
  /** The installation's shared pace of re-runs and reports; absent, re-runs go at once. */
  readonly pacing?: RerunPacing;
  /** How long a run may wait for its re-run turn before it is expired. */
  readonly maxWaitMs?: number;
  /** The clock the pace, the ledger and the breaker keep (tests move it). */
  readonly now?: () => number;
  /** Where the outcome of each re-run attempt is recorded; none recorded when absent. */
  readonly outcomes?: RerunOutcomeLog;
  /** Pauses an installation's re-runs while they keep being lost; never paused when absent. */
  readonly breaker?: RerunBreaker;
  /** Where each decision and re-run outcome is published; nothing published when absent. */
  readonly events?: EventPublisher;
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Identifies this worker's claims. */
  readonly owner: string;
  readonly leaseMs: number;
}

export interface RunOutcome {
  readonly decision: DecisionKind;
  readonly reason: string;
  readonly requests: number;
  readonly verdicts: readonly JobVerdict[];
}

/**
 * Decides one run attempt: claim it, gather only the facts the decision asks for, re-run at
 * most once, record the outcome. A fault before the re-run call, or a rate limit on it, gives
 * the claim back and rethrows, so the message is retried; after any other fault of the call the
 * claim stays for the reconciler.
 */
export async function decideRun(msg: RunMessage, deps: WorkerDeps): Promise<RunOutcome> {
  const repository = `${msg.repository.owner}/${msg.repository.name}`;
  const base = { run_id: msg.runId, run_attempt: msg.runAttempt, repository, delivery: msg.deliveryId };
  const claim = await deps.ledger.claim(msg, deps.owner, deps.leaseMs);
  if (!claim.claimed) {
    const prior = claim.existing;
    const now = (deps.now ?? Date.now)();
    // A copy that comes back before the turn of its waiting attempt goes back to wait for it too.
    if (prior?.state === 'waiting' && (prior.slotAt ?? 0) > now) throw new WaitForTurnError(prior.slotAt! - now);
    const { reason, unsettled } = priorClaim(prior);
    if (unsettled) {
      // Nothing was decided: the failed call's claim is the reconciler's, and no second call is made.
      deps.log.warn('re-run call unsettled', { ...base, reason, requests: 0 });
      deps.metrics.count('RerunCallUnsettled');
      return { decision: 'duplicate', reason, requests: 0, verdicts: [] };
    }
    deps.log.info('decision', { ...base, decision: 'duplicate', reason, requests: 0 });
    deps.metrics.count('Decision', 1, { name: 'decision', value: 'duplicate' });
    await publishQuietly(
      deps.events,
      decisionEvent(msg, { decision: 'duplicate', reason, verdicts: [] }, (deps.now ?? Date.now)()),
      deps.log,
      base,
    );
    return { decision: 'duplicate', reason, requests: 0, verdicts: [] };
  }

  const api = new RepoApi(deps.client(msg.installationId), msg.repository.owner, msg.repository.name, deps.graphqlUrl);
  let rerunCalled = false;
  // True only while a re-run call is out: a fault then leaves GitHub's action unknown.
  let calling = false;
  try {
    const allowed = deps.repositoryAllowList ? deps.repositoryAllowList.includes(repository) : undefined;
    // The configuration and the run's latest jobs are read at once: one round trip, not two.
    const latest = allowed !== false && msg.createdAt ? api.listLatestJobs(msg.runId) : undefined;
    latest?.catch(() => undefined);
    const cfg = await deps.configSource.load(api, msg.repository.owner, msg.repository.name, deps.defaults);
    if (cfg.error) deps.log.error('configuration error; failing closed', { ...base, error: cfg.error, kept: cfg.kept });
    const config = cfg.config;

    const { step, facts, verdicts, unexamined } = await evaluateRun(
      { message: msg, config, ...(allowed !== undefined && { repositoryAllowed: allowed }) },
      api,
      { ...deps, ...(latest && { latest }) },
    );
    await recordOutcome(msg, deps, repository, verdicts, base);
    if (step.kind === 'wait') {
      // Nothing was called on GitHub: the claim goes back (below) and the message waits its turn.
      deps.log.info('decision deferred', { ...base, reason: step.reason, until: new Date(step.untilMs).toISOString() });
      deps.metrics.count('BreakerDeferred');
      throw new PausedError(Math.max(1000, step.untilMs - (deps.now ?? Date.now)()), step.reason);
    }
    let decision: DecisionKind;
    let reason: string;
    if (step.kind === 'final') {
      ({ decision, reason } = step);
    } else {
      const candidates = candidateJobs(facts.jobs ?? [], msg, config);
      const turn = await takeTurn(msg, claim, deps);
      if (turn.kind === 'final') {
        ({ decision, reason } = turn);
        deps.metrics.count('Expired');
      } else {
        let answer: RerunAnswer;
        let next: ReturnType<typeof afterRerun>;
        rerunCalled = calling = true;
        answer = await api.rerunFailedJobs(msg.runId);
        const refused: RerunAnswer[] = [];
        for (;;) {
          next = afterRerun(answer, candidates, step.cancelledOnly, config, refused);
          if (next.kind === 'final') break;
          refused.push(answer);
          answer = next.call === 'job' ? await api.rerunJob(next.jobId) : await api.rerunRun(msg.runId);
        }
        calling = false;
        decision = next.decision;
        reason = isRerunDecision(decision) ? `${step.reason}; ${next.reason}` : next.reason;
      }
      if (isRerunDecision(decision)) {
        deps.metrics.count('Rerun');
        deps.metrics.count(step.evidence === 'exact' ? 'ExactSignalRetry' : 'TextOnlyRetry');
        // The re-run went through: a budget write that fails must not keep the decision from being recorded.
        await deps.budget
          ?.spend(msg.installationId, `${msg.repository.id}#${msg.runId}#${msg.runAttempt}`)
          .catch((e: Error) =>
            deps.log.warn('could not count the re-run against the budget', { ...base, error: e.message }),
          );
      }
    }
    // The repository's owners read the decision (log line, check run), so a broken file is named there.
    if (cfg.error) reason = `${configErrorNote(cfg)}; ${reason}`;
    const line = cfg.error ? { ...base, config_error: cfg.error } : base;
    return await record(msg, deps, api, config, line, { decision, reason, verdicts, unexamined });
  } catch (err) {
    // A rate-limited re-run call was turned away before GitHub acted on it, so the claim goes
    // back as well; a re-decision that finds the run at a later attempt answers duplicate. A
    // run waiting for its turn keeps its attempt, marked waiting.
    if ((!rerunCalled || err instanceof RateLimitedError) && !(err instanceof WaitForTurnError)) {
      await deps.ledger
        .release(msg, deps.owner)
        .catch((e: Error) => deps.log.warn('could not release claim', { ...base, error: e.message }));
    }
    if (calling && !(err instanceof RateLimitedError)) {
      await deps.ledger
        .noteCallFailed(msg, deps.owner, callFailure(err))
        .catch((e: Error) => deps.log.warn('could not note the failed re-run call', { ...base, error: e.message }));
    }
    throw err;
  }
}

const DEFAULT_MAX_WAIT_MS = 6 * 60 * 60_000;

/**
 * The run's turn in its installation's pace: the slot it kept while waiting, or a new one. A
 * slot still ahead turns the claim into a wait and sends the message back until then; a run
 * with no slot free within `maxWaitMs` of when it started waiting is expired.
 */
async function takeTurn(
  msg: RunMessage,
  claim: Extract<ClaimResult, { claimed: true }>,
  deps: WorkerDeps,
): Promise<Exclude<TurnStep, { kind: 'wait' }>> {
  if (!deps.pacing) return { kind: 'go' };
  const clock = deps.now ?? Date.now;
  const waitingSince = claim.waitingSince ?? clock();
  const maxWaitMs = deps.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const slotAt = claim.slotAt ?? (await deps.pacing.reserve(msg.installationId, waitingSince + maxWaitMs));
  const now = clock();
  const turn = turnStep({ slotAt, now, waitingSince, maxWaitMs });
  if (turn.kind !== 'wait') return turn;
  if (!(await deps.ledger.wait(msg, deps.owner, turn.until, waitingSince, deps.leaseMs))) {
    throw new TransientError('the claim was lost before the run could wait for its turn');
  }
  throw new WaitForTurnError(turn.until - now);
}

/** A report waits in-process for its slot at most this long. */
const REPORT_MAX_WAIT_MS = 1_000;

/**
 * With the pace, a report takes a slot only when one is free within a slot's spacing (and a
 * second): when re-runs of the installation are waiting for their turn, the report yields and
 * is skipped.
 */
async function reportTurn(msg: RunMessage, deps: WorkerDeps): Promise<boolean> {
  if (!deps.pacing) return true;
  const clock = deps.now ?? Date.now;
  const latest = clock() + Math.min(deps.pacing.spacingMs, REPORT_MAX_WAIT_MS);
  const slot = await deps.pacing.reserve(msg.installationId, latest);
  if (slot === undefined) return false;
  const wait = slot - clock();
  if (wait > 0) await sleep(wait);
  return true;
}

/** What evaluating a run reads: no ledger, and nothing that writes to GitHub. */
export type EvaluationDeps = Pick<
  WorkerDeps,
  'budget' | 'breaker' | 'signals' | 'signalWindow' | 'logHosts' | 'logWindowBytes' | 'log' | 'metrics'
> & {
  /** The run's latest jobs, already asked for. */
  readonly latest?: Promise<JobFacts[]>;
};

export interface Evaluation {
  /** The decision, or the re-run it asks for. */
  readonly step: Exclude<DecisionStep, { kind: 'need' }>;
  readonly facts: DecisionFacts;
  readonly verdicts: JobVerdict[];
  readonly unexamined: number;
}

/** Gathers the facts `decide()` asks for until it is final or asks for a re-run. Reads only. */
export async function evaluateRun(start: DecisionFacts, api: RepoApi, deps: EvaluationDeps): Promise<Evaluation> {
  let facts = start;
  let unexamined = 0;
  let verdicts: JobVerdict[] = [];
  for (;;) {
    const step = decide(facts);
    if (step.kind !== 'need') return { step, facts, verdicts, unexamined };
    facts = await gather(step.what, facts, api, deps, facts.config, (v, u) => {
      verdicts = v;
      unexamined = u;
    });
  }
}

async function gather(
  what: FactName,
  facts: DecisionFacts,
  api: RepoApi,
  deps: EvaluationDeps,
  config: RepoConfig,
  keep: (v: JobVerdict[], unexamined: number) => void,
): Promise<DecisionFacts> {
  const msg = facts.message;
  switch (what) {
    case 'run':
      return { ...facts, ...(await readRun(msg, api, deps.latest)) };
    case 'stale':
      return { ...facts, stale: await findStaleness(api, msg, facts.run!) };
    case 'budget':
      return { ...facts, budget: deps.budget ? await deps.budget.usage(msg.installationId) : { limit: 0, used: 0 } };
    case 'jobs':
      return { ...facts, jobs: await api.listAttemptJobs(msg.runId, msg.runAttempt) };
    case 'breaker': {
      if (!deps.breaker) return { ...facts, breaker: { openUntil: null, outcomes: 0, lostAgain: 0, windowMs: 0 } };
      const { tripped, ...breaker } = await deps.breaker.state(msg.installationId);
      if (tripped) {
        deps.log.warn('breaker opened: automatic re-runs of this installation pause', {
          installation_id: msg.installationId,
          until: new Date(breaker.openUntil ?? 0).toISOString(),
          outcomes: breaker.outcomes,
          lost_again: breaker.lostAgain,
        });
        deps.metrics.count('BreakerOpen');
      }
      return { ...facts, breaker };
    }
    case 'verdicts': {
      const g = await gatherVerdicts(candidateJobs(facts.jobs ?? [], msg, config), {
        api,
        ...(deps.signals && { signals: deps.signals }),
        signalWindow: deps.signalWindow,
        extraPatterns: config.extraPatterns,
        logHosts: deps.logHosts,
        logWindowBytes: deps.logWindowBytes,
        log: deps.log,
      });
      keep(g.verdicts, g.unexamined);
      const matched = g.verdicts.filter((v) => v.source === 'signal').length;
      if (matched > 0) deps.metrics.count('SignalMatched', matched);
      return { ...facts, verdicts: g.verdicts };
    }
  }
}

/**
 * The run's state, from its latest jobs when they can answer for it: one listing then serves
 * both the run and its jobs. Otherwise the run itself is read, and the jobs later.
 */
async function readRun(
  msg: RunMessage,
  api: RepoApi,
  asked?: Promise<JobFacts[]>,
): Promise<Pick<DecisionFacts, 'run' | 'jobs'>> {
  if (msg.createdAt) {
    const latest = await (asked ?? api.listLatestJobs(msg.runId));
    const run = runFromLatestJobs(msg, latest);
    // Jobs listed for a newer attempt are not this attempt's: the decision is duplicate anyway.
    if (run) return run.runAttempt === msg.runAttempt ? { run, jobs: latest } : { run };
  }
  return { run: await api.getRun(msg.runId) };
}

/**
 * The outcome of this attempt when it is a re-run reprise made: the red attempt's own
 * evidence says whether it was lost again. A failed write is logged, never the decision's fault.
 */
async function recordOutcome(
  msg: RunMessage,
  deps: WorkerDeps,
  repository: string,
  verdicts: readonly JobVerdict[],
  base: Record<string, unknown>,
): Promise<void> {
  if (!deps.outcomes || msg.runAttempt < 2) return;
  const outcome = redOutcome(msg.conclusion, verdicts);
  const ref = {
    installationId: msg.installationId,
    repoId: msg.repository.id,
    repository,
    runId: msg.runId,
    runAttempt: msg.runAttempt,
  };
  try {
    if ((await deps.outcomes.recordIfRerun(ref, outcome)) !== 'recorded') return;
    deps.log.info('re-run outcome', { ...base, outcome });
    deps.metrics.count('RerunOutcome', 1, { name: 'outcome', value: outcome });
    await publishQuietly(deps.events, outcomeEvent(ref, outcome, (deps.now ?? Date.now)()), deps.log, base);
  } catch (e) {
    deps.log.warn('could not record the re-run outcome', { ...base, error: (e as Error).message });
  }
}

async function record(
  msg: RunMessage,
  deps: WorkerDeps,
  api: RepoApi,
  config: RepoConfig,
  base: Record<string, unknown>,
  given: { decision: DecisionKind; reason: string; verdicts: JobVerdict[]; unexamined: number },
): Promise<RunOutcome> {
  const o = boundedOutcome(given);
  for (const v of o.verdicts) {
    deps.log.info('job', {
      ...base,
      job_id: v.job.id,
      name: v.job.name,
      conclusion: v.job.conclusion,
      runner_name: v.job.runnerName,
      verdict: v.verdict,
      source: v.source,
      evidence: v.evidence,
    });
  }
  // A file that fails closed reads no job, but its owners still see its error where they asked.
  if (config.report === 'check_run' && (o.verdicts.length > 0 || base.config_error !== undefined)) {
    const go = await reportTurn(msg, deps).catch((e: Error) => {
      deps.log.warn('could not reserve a turn for the check run', { ...base, error: e.message });
      return false;
    });
    if (go) {
      await reportCheckRun(api, msg.headSha, o, o.verdicts).catch((e: Error) =>
        deps.log.warn('could not create the reprise check run', { ...base, error: e.message }),
      );
    } else {
      deps.log.info('check run skipped: re-runs of this installation are waiting for their turn', base);
      deps.metrics.count('ReportYielded');
    }
  }
  const line = { ...base, decision: o.decision, reason: o.reason, requests: api.requests, unexamined: o.unexamined };
  if (o.decision === 'no_infra_evidence' || o.decision === 'rerun_rejected' || o.decision === 'expired')
    deps.log.warn('decision', line);
  else deps.log.info('decision', line);
  deps.metrics.count('Decision', 1, { name: 'decision', value: o.decision });
  if (o.decision === 'budget_exhausted') deps.metrics.count('BudgetExhausted');
  const kept = await deps.ledger.finalise(msg, deps.owner, o.decision, o.reason, {
    requests: api.requests,
    // The workflow and each job's own times: `reprise report` counts the minutes lost from them.
    workflow: msg.workflow.name,
    jobs: o.verdicts.map((v) => ({
      name: v.job.name,
      verdict: v.verdict,
      source: v.source,
      ...(v.job.startedAt && { startedAt: v.job.startedAt }),
      ...(v.job.completedAt && { completedAt: v.job.completedAt }),
    })),
  });
  if (!kept) deps.log.warn('claim was lost before the decision was recorded', line);
  // Published once the decision is recorded (or its claim found lost), so a consumer never acts on one undone.
  await publishQuietly(deps.events, decisionEvent(msg, o, (deps.now ?? Date.now)()), deps.log, line);
  return { decision: o.decision, reason: o.reason, requests: api.requests, verdicts: o.verdicts };
}
