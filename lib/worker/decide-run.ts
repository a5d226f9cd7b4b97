/**
 * One decision, stage by stage: claim the run attempt, settle a copy, evaluate (or resume a
 * wait from the facts it kept), take the pace turn and a unit of the budget, call GitHub, record.
 * Ordinary outcomes — a decision, a wait — are returned; only faults are thrown.
 */
import {
  budgetSpentReason,
  candidateJobs,
  type DecisionFacts,
  type DecisionStep,
  staleCheckApplies,
} from '../decide/decide.js';
import { RateLimitedError, TransientError } from '../errors.js';
import { configErrorNote } from '../github/repo-config-source.js';
import { RepoApi } from '../github/repo-api.js';
import type { AttemptRecord } from '../records.js';
import { type DecisionKind, isRerunDecision, type JobVerdict, type RepoConfig, type RunMessage } from '../model.js';
import { decisionEvent, publishQuietly } from '../events/build.js';
import { evaluateRun } from './evaluate.js';
import { keepFacts, type KeptFacts, readKeptFacts } from './kept-facts.js';
import { record, recordOutcome } from './record-decision.js';
import { callFailure, priorClaim } from './prior-claim.js';
import { actOnMergeGroup } from './requeue.js';
import { rerunCalls } from './rerun-calls.js';
import { takeTurn } from './turn.js';
import type { RunOutcome, RunResult, WorkerDeps } from './worker-deps.js';

type Line = Record<string, unknown>;

/** What the decision knows once it is final or asks for a re-run. */
interface Judged {
  readonly config: RepoConfig;
  /** The configuration error as the decision's reason says it, and as the log line's `config_error`. */
  readonly configError?: string;
  readonly configErrorRaw?: string;
  readonly step: Exclude<DecisionStep, { kind: 'need' }>;
  readonly facts: DecisionFacts;
  readonly verdicts: readonly JobVerdict[];
  readonly unexamined: number;
  /** GitHub requests made before a wait, when this is the turn after one. */
  readonly priorRequests: number;
}

/**
 * Decides one run attempt: claim it, gather only the facts the decision asks for, re-run at
 * most once, record the outcome. A fault before the re-run call, or a rate limit on it, gives
 * the claim back and rethrows, so the message is retried; after any other fault of the call the
 * claim stays for the reconciler.
 */
export async function decideRun(msg: RunMessage, deps: WorkerDeps): Promise<RunResult> {
  const repository = `${msg.repository.owner}/${msg.repository.name}`;
  const base: Line = { run_id: msg.runId, run_attempt: msg.runAttempt, repository, delivery: msg.deliveryId };
  const claim = await deps.ledger.attempts.claim(msg, deps.owner, deps.leaseMs);
  if (!claim.claimed) return settleUnclaimed(msg, claim.existing, deps, base);

  const api = new RepoApi(deps.client(msg.installationId), msg.repository.owner, msg.repository.name, deps.graphqlUrl);
  let rerunCalled = false;
  // True only while a re-run call is out: a fault then leaves GitHub's action unknown.
  let calling = false;
  let waiting = false;
  // True once a unit of the retry budget is taken for this attempt, until it is given back.
  let budgetTaken = false;
  try {
    const kept = readKeptFacts(claim.kept);
    const judged = kept ? await resume(msg, kept, api, deps) : await evaluateAfresh(msg, repository, api, deps, base);
    const { step, config } = judged;
    if (step.kind === 'wait') {
      // The breaker's pause: nothing was called on GitHub, so the claim goes back (below).
      deps.log.info('decision deferred', { ...base, reason: step.reason, until: new Date(step.untilMs).toISOString() });
      deps.metrics.count('BreakerDeferred');
      await release(msg, deps, base);
      return { kind: 'deferred', untilMs: step.untilMs, reason: step.reason, metric: 'RerunPaused' };
    }
    let decision: DecisionKind;
    let reason: string;
    if (step.kind === 'final') {
      ({ decision, reason } = step);
    } else {
      const turn = await takeTurn(msg.installationId, claim, { ...deps, inlineWaitMs: deps.inlineTurnWaitMs });
      if (turn.kind === 'wait') {
        await waitForTurn(msg, judged, api, deps, turn);
        waiting = true;
        const reason = `waiting for a re-run turn in ${Math.ceil((turn.until - deps.now()) / 1000)}s`;
        return { kind: 'deferred', untilMs: turn.until, reason, metric: 'RerunWaiting' };
      }
      const unit = turn.kind === 'final' ? undefined : await deps.budget.take(msg.installationId, runKey(msg));
      if (turn.kind === 'final') {
        ({ decision, reason } = turn);
        deps.metrics.count('Expired');
      } else if (!unit!.taken) {
        // Another worker took the hour's last unit after this one read the budget.
        decision = 'budget_exhausted';
        reason = budgetSpentReason(unit!);
      } else {
        budgetTaken = true;
        // A merge-group run puts its pull request back in the queue instead (lib/worker/requeue.ts).
        const queued = await actOnMergeGroup(msg, config, api, deps, step.reason, () => (rerunCalled = true));
        if (queued.kind === 'final') {
          ({ decision, reason } = queued);
        } else {
          rerunCalled = calling = true;
          const candidates = candidateJobs(judged.facts.jobs ?? [], msg, config);
          ({ decision, reason } = await rerunCalls(api, msg, candidates, step, config));
          calling = false;
          if (queued.note) reason = `${reason}; ${queued.note}`;
        }
        if (!spendsBudget(decision)) await giveBack(msg, deps, base);
      }
      if (isRerunDecision(decision)) countRerun(deps, step.evidence);
    }
    // The repository's owners read the decision (log line, check run), so a broken file is named there.
    if (judged.configError) reason = `${judged.configError}; ${reason}`;
    const line = judged.configErrorRaw ? { ...base, config_error: judged.configErrorRaw } : base;
    const outcome = await record(msg, deps, api, config, line, {
      decision,
      reason,
      verdicts: judged.verdicts,
      unexamined: judged.unexamined,
      priorRequests: judged.priorRequests,
    });
    return { kind: 'decided', outcome };
  } catch (err) {
    // A rate-limited re-run call was turned away before GitHub acted on it, so the claim goes
    // back as well; a re-decision that finds the run at a later attempt answers duplicate.
    if (!waiting && (!rerunCalled || err instanceof RateLimitedError)) {
      await release(msg, deps, base);
      if (budgetTaken) await giveBack(msg, deps, base);
    }
    if (calling && !(err instanceof RateLimitedError)) {
      await deps.ledger.attempts
        .noteCallFailed(msg, deps.owner, callFailure(err))
        .catch((e: Error) => deps.log.warn('could not note the failed re-run call', { ...base, error: e.message }));
    }
    throw err;
  }
}

/** The first look at an attempt: configuration, then the facts `decide()` asks for. */
async function evaluateAfresh(
  msg: RunMessage,
  repository: string,
  api: RepoApi,
  deps: WorkerDeps,
  base: Line,
): Promise<Judged> {
  const allowed = deps.repositoryAllowList ? deps.repositoryAllowList.includes(repository) : undefined;
  // The configuration and the run's latest jobs are read at once: one round trip, not two.
  const latest = allowed !== false && msg.createdAt ? api.listLatestJobs(msg.runId) : undefined;
  latest?.catch(() => undefined);
  const cfg = await deps.configSource.load(api, msg.repository.owner, msg.repository.name, deps.defaults);
  if (cfg.error) deps.log.error('configuration error; failing closed', { ...base, error: cfg.error, kept: cfg.kept });
  const ev = await evaluateRun(
    { message: msg, config: cfg.config, ...(allowed !== undefined && { repositoryAllowed: allowed }) },
    api,
    { ...deps, ...(latest && { latest }) },
  );
  await recordOutcome(msg, deps, repository, ev.verdicts, base);
  const configError = cfg.error ? configErrorNote(cfg) : undefined;
  return {
    config: cfg.config,
    ...(configError && { configError, configErrorRaw: cfg.error }),
    ...ev,
    priorRequests: 0,
  };
}

/**
 * The turn after a wait: the verdicts and the configuration are the ones kept; the run is read
 * again (one listing: moved on? running again?) and the ledger's budget and breaker afresh. The
 * staleness check ran before the wait and is not repeated.
 */
async function resume(msg: RunMessage, kept: KeptFacts, api: RepoApi, deps: WorkerDeps): Promise<Judged> {
  const ev = await evaluateRun(
    {
      message: msg,
      config: kept.config,
      ...(staleCheckApplies(kept.config, msg) && { stale: {} }),
      jobs: kept.verdicts.map((v) => v.job),
      verdicts: kept.verdicts,
    },
    api,
    deps,
  );
  return {
    config: kept.config,
    ...(kept.configError && { configError: kept.configError }),
    ...(kept.configErrorRaw && { configErrorRaw: kept.configErrorRaw }),
    ...ev,
    unexamined: kept.unexamined,
    priorRequests: kept.requests,
  };
}

/** Turns the claim into a wait for the slot, keeping what the turn will need. */
async function waitForTurn(
  msg: RunMessage,
  judged: Judged,
  api: RepoApi,
  deps: WorkerDeps,
  turn: { readonly until: number; readonly waitingSince: number },
): Promise<void> {
  const kept = keepFacts({
    config: judged.config,
    ...(judged.configError && { configError: judged.configError }),
    ...(judged.configErrorRaw && { configErrorRaw: judged.configErrorRaw }),
    verdicts: judged.verdicts,
    unexamined: judged.unexamined,
    requests: judged.priorRequests + api.requests,
  });
  if (!(await deps.ledger.attempts.wait(msg, deps.owner, turn.until, turn.waitingSince, deps.leaseMs, kept))) {
    throw new TransientError('the claim was lost before the run could wait for its turn');
  }
}

/**
 * An attempt this worker could not claim. Its own waiting message, back early, waits out the
 * rest of its turn; a copy of a waiting attempt is settled, since the waiting message comes
 * back at the turn itself; anything else is a duplicate of a decided or claimed attempt.
 */
async function settleUnclaimed(
  msg: RunMessage,
  prior: AttemptRecord | undefined,
  deps: WorkerDeps,
  base: Line,
): Promise<RunResult> {
  const now = deps.now();
  let reason: string;
  if (prior?.state === 'waiting' && (prior.slotAt ?? 0) > now) {
    if (waitedBy(prior) === msg.deliveryId) {
      const reason = `waiting for a re-run turn in ${Math.ceil((prior.slotAt! - now) / 1000)}s`;
      return { kind: 'deferred', untilMs: prior.slotAt!, reason, metric: 'RerunWaiting' };
    }
    reason = `attempt waits for its re-run turn at ${new Date(prior.slotAt!).toISOString()} under another delivery`;
  } else {
    const settled = priorClaim(prior);
    reason = settled.reason;
    if (settled.unsettled) {
      // Nothing was decided: the failed call's claim is the reconciler's, and no second call is made.
      deps.log.warn('re-run call unsettled', { ...base, reason, requests: 0 });
      deps.metrics.count('RerunCallUnsettled');
      return { kind: 'decided', outcome: { decision: 'duplicate', reason, requests: 0, verdicts: [] } };
    }
  }
  deps.log.info('decision', { ...base, decision: 'duplicate', reason, requests: 0 });
  deps.metrics.count('Decision', 1, { name: 'decision', value: 'duplicate' });
  const outcome: RunOutcome = { decision: 'duplicate', reason, requests: 0, verdicts: [] };
  await publishQuietly(deps.events, decisionEvent(msg, outcome, now), deps.log, base);
  return { kind: 'decided', outcome };
}

/** The delivery whose message waits for the attempt's turn. */
function waitedBy(prior: AttemptRecord): string | undefined {
  try {
    return (JSON.parse(prior.message) as Partial<RunMessage>).deliveryId;
  } catch {
    return undefined;
  }
}

/** The attempt's key in the retry budget. */
const runKey = (msg: RunMessage): string => `${msg.repository.id}#${msg.runId}#${msg.runAttempt}`;

/** A re-run, or a pull request put back in the merge queue, keeps its unit of the budget. */
const spendsBudget = (decision: DecisionKind): boolean => isRerunDecision(decision) || decision === 'requeued';

function countRerun(deps: WorkerDeps, evidence: 'exact' | 'text'): void {
  deps.metrics.count('Rerun');
  deps.metrics.count(evidence === 'exact' ? 'ExactSignalRetry' : 'TextOnlyRetry');
}

/** Nothing was re-run: the unit goes back. A write that fails costs the hour one unit, never the decision. */
async function giveBack(msg: RunMessage, deps: WorkerDeps, base: Line): Promise<void> {
  await deps.budget
    .giveBack(msg.installationId, runKey(msg))
    .catch((e: Error) => deps.log.warn('could not give the retry budget its unit back', { ...base, error: e.message }));
}

async function release(msg: RunMessage, deps: WorkerDeps, base: Line): Promise<void> {
  await deps.ledger.attempts
    .release(msg, deps.owner)
    .catch((e: Error) => deps.log.warn('could not release claim', { ...base, error: e.message }));
}
