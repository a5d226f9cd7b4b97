import { staleCheckApplies } from '../decide/decide.js';
import type { RepoApi } from '../github/repo-api.js';
import type { JobVerdict, RepoConfig, RunMessage } from '../model.js';
import { type EvaluationContext, evaluateRun, evaluationDeps, type Judged } from './evaluate.js';

/**
 * What a run that earned a re-run keeps with its waiting attempt, so its turn costs one
 * re-check of the run and the call, not the whole decision again. The patterns are left out:
 * they served the verdicts, which are kept.
 */
export interface KeptFacts {
  readonly config: RepoConfig;
  /** The configuration error as the reason says it, and as the log line's `config_error`. */
  readonly configError?: string;
  readonly configErrorRaw?: string;
  /** What the operator's ceiling lowered in the repository's settings. */
  readonly clamped?: readonly string[];
  readonly verdicts: readonly JobVerdict[];
  readonly unexamined: number;
  /** GitHub requests the decision made before it waited. */
  readonly requests: number;
}

const VERSION = 1;

export function keepFacts(k: KeptFacts): string {
  const { extraPatterns: _spent, ...config } = k.config;
  return JSON.stringify({ v: VERSION, ...k, config });
}

/** The kept facts, or undefined when they cannot be read (another version): the turn then decides afresh. */
export function readKeptFacts(text: string | undefined): KeptFacts | undefined {
  if (text === undefined) return undefined;
  try {
    const k = JSON.parse(text) as Partial<KeptFacts> & { v?: unknown };
    if (k.v !== VERSION || typeof k.config !== 'object' || k.config === null || !Array.isArray(k.verdicts)) {
      return undefined;
    }
    return {
      config: { ...k.config, extraPatterns: [] },
      ...(typeof k.configError === 'string' && { configError: k.configError }),
      ...(typeof k.configErrorRaw === 'string' && { configErrorRaw: k.configErrorRaw }),
      ...(Array.isArray(k.clamped) && { clamped: k.clamped.map(String) }),
      verdicts: k.verdicts,
      unexamined: typeof k.unexamined === 'number' ? k.unexamined : 0,
      requests: typeof k.requests === 'number' ? k.requests : 0,
    };
  } catch {
    return undefined;
  }
}

/** The facts a decision that asks for a re-run keeps while it waits for its turn. */
export const factsToKeep = (judged: Judged, requestsSoFar: number): KeptFacts => ({
  config: judged.config,
  ...(judged.configError && { configError: judged.configError }),
  ...(judged.configErrorRaw && { configErrorRaw: judged.configErrorRaw }),
  ...(judged.clamped && { clamped: judged.clamped }),
  verdicts: judged.verdicts,
  unexamined: judged.unexamined,
  requests: requestsSoFar,
});

/**
 * The turn after a wait: the verdicts and the configuration are the ones kept; the run is read
 * again (one listing: moved on? running again?) and the ledger's budget and breaker afresh. The
 * staleness check ran before the wait and is not repeated.
 */
export async function resumeFromKept(
  msg: RunMessage,
  kept: KeptFacts,
  api: RepoApi,
  ctx: EvaluationContext,
): Promise<Judged> {
  const ev = await evaluateRun(
    {
      message: msg,
      config: kept.config,
      ...(staleCheckApplies(kept.config, msg) && { stale: {} }),
      jobs: kept.verdicts.map((v) => v.job),
      verdicts: kept.verdicts,
    },
    api,
    evaluationDeps(ctx),
  );
  return {
    config: kept.config,
    ...(kept.configError && { configError: kept.configError }),
    ...(kept.configErrorRaw && { configErrorRaw: kept.configErrorRaw }),
    ...(kept.clamped && { clamped: kept.clamped }),
    ...ev,
    unexamined: kept.unexamined,
    priorRequests: kept.requests,
  };
}
