/**
 * Evaluating a run: gathers the facts the pure `decide()` asks for until it is final or asks for
 * a re-run. It reads GitHub and the ledger's counters and writes nothing, so the CLI's `explain`
 * uses it as it is.
 */
import type { RepoConfig } from '../config/repo-config.js';
import type { DecisionFacts, DecisionStep, FactName } from '../decide/decide.js';
import { candidateJobs, decide } from '../decide/decide.js';
import { runFromLatestJobs } from '../decide/run-from-jobs.js';
import type { RepoApi } from '../github/repo-api.js';
import type { JobFacts, JobVerdict, RunMessage, SignalWindow } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { RerunBreaker } from '../ledger/outcomes.js';
import type { RetryBudget } from '../ledger/budget.js';
import type { EvidenceSources } from './gather-verdicts.js';
import { gatherVerdicts } from './gather-verdicts.js';
import { findStaleness } from './staleness.js';

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
  /** The run's latest jobs, already asked for. */
  readonly latest?: Promise<JobFacts[]>;
}

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
  // Verdicts kept from before a wait are not gathered again.
  let verdicts: JobVerdict[] = [...(start.verdicts ?? [])];
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
