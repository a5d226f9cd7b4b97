import { branchRule } from '../decide/branch-staleness.js';
import { staleCheckApplies } from '../decide/decide.js';
import type { JobListing } from '../github/job-listing.js';
import type { RepoApi } from '../github/repo-api.js';
import type { JobFacts, JobVerdict, RepoConfig, RunMessage } from '../model.js';
import type { WorkerGitHub } from './context.js';
import { type EvaluationContext, evaluateRun, evaluationDeps, type Judged } from './evaluate.js';
import { startGapRead } from './staleness.js';

/**
 * The run facts cached with a waiting attempt (a run that earned a re-run and waits for its pace
 * slot), so the pass that resumes it costs one re-check of the run and the call, not the whole
 * decision again. The patterns are left out: they served the verdicts, which are cached.
 */
export interface CachedRunFacts {
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
  /** The App's requests (its delivery log) the decision made before it waited, counted apart. */
  readonly appRequests?: number;
  /** The ETag of the run's latest jobs as listed before the wait (a one-page listing's). */
  readonly listingEtag?: string;
}

const VERSION = 1;

/** The cached facts as the ledger stores them: versioned JSON text, the spent patterns left out. */
export function encodeCachedFacts(k: CachedRunFacts): string {
  const { extraPatterns: _spent, ...config } = k.config;
  return JSON.stringify({ v: VERSION, ...k, config });
}

/** The cached facts, or undefined when they cannot be read (another version): the resumed pass then decides afresh. */
export function readCachedFacts(text: string | undefined): CachedRunFacts | undefined {
  if (text === undefined) return undefined;
  try {
    const k = JSON.parse(text) as Partial<CachedRunFacts> & { v?: unknown };
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
      ...(typeof k.appRequests === 'number' && { appRequests: k.appRequests }),
      ...(typeof k.listingEtag === 'string' && { listingEtag: k.listingEtag }),
    };
  } catch {
    return undefined;
  }
}

/** The facts a decision that asks for a re-run caches while it waits for its pace slot. */
export const factsToCache = (judged: Judged, requestsSoFar: number, appRequestsSoFar = 0): CachedRunFacts => ({
  config: judged.config,
  ...(judged.configError && { configError: judged.configError }),
  ...(judged.configErrorRaw && { configErrorRaw: judged.configErrorRaw }),
  ...(judged.clamped && { clamped: judged.clamped }),
  verdicts: judged.verdicts,
  unexamined: judged.unexamined,
  requests: requestsSoFar,
  ...(appRequestsSoFar > 0 && { appRequests: appRequestsSoFar }),
  ...(judged.listingEtag && { listingEtag: judged.listingEtag }),
});

/**
 * The pass after a wait: the verdicts and the configuration are the cached ones; the run is read
 * again (one listing: moved on? running again?) and the ledger's budget and breaker afresh. A
 * branch run is checked for staleness again at no cost to the installation: the intake's record
 * of the branch (a newer run recorded during the wait makes it stale) and, when the record still
 * names it current, the App's delivery log since the run started, read beside the listing (a
 * failure there lets one listing decide). A run the record cannot place, and a pull request's
 * run, keep the check made before the wait: listing again would cost the installation a
 * request on every pass. With the first listing's ETag cached,
 * the listing is asked on the condition that it changed: GitHub's 304 (free of rate limit) says
 * nothing did, and the cached jobs stand; a changed listing (a person re-ran the run meanwhile)
 * comes in full and is decided on.
 */
export async function resumeFromCache(
  msg: RunMessage,
  cached: CachedRunFacts,
  api: RepoApi,
  ctx: EvaluationContext & { readonly github?: Pick<WorkerGitHub, 'deliveryLog'> },
): Promise<Judged> {
  const jobs = cached.verdicts.map((v) => v.job);
  const etag = cached.listingEtag;
  const latest = etag && msg.createdAt ? relist(api, msg.runId, etag, jobs) : undefined;
  latest?.catch(() => undefined);
  const again = branchRule(cached.config, msg) !== undefined && ctx.stores.branchRuns !== undefined;
  const deliveryGap = again ? startGapRead(msg, ctx.github?.deliveryLog) : undefined;
  const ev = await evaluateRun(
    {
      message: msg,
      config: cached.config,
      ...(staleCheckApplies(cached.config, msg) && !deliveryGap && { stale: {} }),
      jobs,
      verdicts: cached.verdicts,
    },
    api,
    { ...evaluationDeps(ctx), ...(latest && { latest }), ...(deliveryGap && { deliveryGap, unrecorded: 'kept' }) },
  );
  return {
    config: cached.config,
    ...(cached.configError && { configError: cached.configError }),
    ...(cached.configErrorRaw && { configErrorRaw: cached.configErrorRaw }),
    ...(cached.clamped && { clamped: cached.clamped }),
    ...ev,
    unexamined: cached.unexamined,
    priorRequests: cached.requests,
    ...(cached.appRequests !== undefined && { priorAppRequests: cached.appRequests }),
    ...(deliveryGap && { deliveryGap }),
  };
}

/**
 * The run's latest jobs at the pass after a wait, asked on the condition that they changed since
 * the listing the decision was made on. Unchanged, that listing stands, and its candidates (the jobs
 * the cached verdicts judged: every failed or cancelled job of the attempt, all completed) answer for the run
 * as the whole listing did.
 */
async function relist(api: RepoApi, runId: number, etag: string, cached: JobFacts[]): Promise<JobListing> {
  const listing = await api.latestJobsIfChanged(runId, etag);
  return listing.kind === 'unchanged' ? { jobs: cached, etag } : listing;
}
