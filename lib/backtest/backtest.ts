/**
 * The backtest: every failed attempt of a period's runs judged as reprise would have judged it,
 * beside what people did. Reads only; what it read of each attempt goes to a cache, so a run
 * stopped by its request budget resumes where it stopped.
 */
import type { RepoConfig } from '../config/repo-config.js';
import { NotFoundError } from '../errors.js';
import type { GitHubClients } from '../github/client.js';
import { statusOf } from '../github/repo-requests.js';
import type { RepoConfigSource } from '../github/repo-config-source.js';
import { RepoApi } from '../github/repo-api.js';
import type { EvaluationDeps } from '../worker/evaluate.js';
import { examined, type ExaminedAttempt } from './compare.js';
import {
  type AttemptRecord,
  attemptOf,
  failedAttempt,
  type HistoryRecord,
  type ListedRun,
  listRuns,
  type RepoName,
} from './history.js';
import { type Judgement, judgeAttempt, staleThen } from './judge.js';
import { isBudgetSpent } from './requests.js';

/** What a backtest keeps between runs: attempt records and judgements, neither of which changes. */
export interface BacktestCache {
  attempt(key: string): AttemptRecord | undefined;
  judgement(key: string): Judgement | undefined;
  keep(key: string, v: { attempt?: AttemptRecord; judgement?: Judgement }): Promise<void>;
}

export const noCache: BacktestCache = {
  attempt: () => undefined,
  judgement: () => undefined,
  keep: async () => undefined,
};

export interface BacktestDeps {
  readonly clients: GitHubClients;
  readonly installationId: number | null;
  readonly graphqlUrl: string;
  readonly defaults: RepoConfig;
  readonly repositoryAllowList?: readonly string[];
  readonly configSource: Pick<RepoConfigSource, 'load'>;
  readonly evaluation: EvaluationDeps;
  readonly cache: BacktestCache;
  /**
   * How many requests the budget has refused so far. Evidence reads turn a failed read into
   * "unreadable"; a judgement made while one was refused is dropped, not kept.
   */
  readonly refused?: () => number;
  /**
   * Requests the budget still allows. An attempt is begun only with room for its reads (its
   * record, jobs, annotations and a log or two), so a budget stops the backtest between attempts.
   */
  readonly headroom?: () => number;
  /** Told how many attempts are done of how many to look at. */
  readonly progress?: (done: number, total: number) => void;
}

export interface BacktestInput {
  readonly repositories: readonly RepoName[];
  readonly sinceMs: number;
  /** Workflow names (or file names) to keep; all when empty. */
  readonly workflows: readonly string[];
}

export interface BacktestResult {
  readonly repositories: number;
  readonly runsListed: number;
  /** Runs in the period with a failed attempt, or re-run. */
  readonly runsExamined: number;
  readonly attempts: ExaminedAttempt[];
  /** False when the request budget ran out before every attempt was examined. */
  readonly complete: boolean;
  /** Attempts that were to be examined, and how many were. */
  readonly planned: number;
  readonly done: number;
  readonly notes: string[];
}

/** Reads one attempt's judgement may take: its jobs, its annotations, and up to two logs. */
const JUDGEMENT_READS = 4;

const key = (run: ListedRun, n: number): string => `${run.repository.id}:${run.id}:${n}`;

const wanted = (run: ListedRun, workflows: readonly string[]): boolean =>
  workflows.length === 0 ||
  workflows.some((w) => w === run.workflowName || (run.workflowPath?.split('/').pop() ?? '') === w);

/** Runs with something to look at: a failed latest attempt, or earlier attempts (re-run, perhaps still running). */
const worthReading = (run: ListedRun): boolean => failedAttempt(run.latest) || run.latest.number > 1;

class Stopped extends Error {}

/**
 * Which source decided whether a run was current: the history's listing. The worker's sources at
 * the time (the intake's record of the branch, checked against GitHub's delivery log) are not kept.
 */
export const STALENESS_SOURCE =
  "staleness judged from the history's listing of the runs (a newer run of the same workflow created before the attempt ended); the intake's record and GitHub's delivery log of that time are not kept";

export async function backtest(input: BacktestInput, deps: BacktestDeps): Promise<BacktestResult> {
  const notes: string[] = [];
  const attempts: ExaminedAttempt[] = [];
  let runsListed = 0;
  let planned = 0;
  let done = 0;
  let complete = true;
  const listings: { repo: RepoName; runs: ListedRun[]; all: ListedRun[] }[] = [];
  const guard = <T>(work: () => Promise<T>): Promise<T> => guardWith(deps.refused, work);
  try {
    for (const repo of input.repositories) {
      const runs = await guard(() => listRuns(deps.clients, repo, input.sinceMs));
      runsListed += runs.length;
      const kept = runs.filter((r) => wanted(r, input.workflows) && worthReading(r));
      listings.push({ repo, runs: kept, all: runs });
      // Each run's attempts up to the latest; the latest is known from the listing.
      planned += kept.reduce((n, r) => n + r.latest.number, 0);
    }
    deps.progress?.(0, planned);
    for (const { repo, runs, all } of listings) {
      let config: Promise<RepoConfig> | undefined;
      const configOf = () =>
        (config ??= deps.configSource.load(api(repo), repo.owner, repo.name, deps.defaults).then((c) => {
          if (c.error) notes.push(`${repo.owner}/${repo.name}: configuration error (${c.error}); defaults used`);
          return c.config;
        }));
      const apiOf = memo(() => api(repo));
      for (const run of runs) {
        const where = `${repo.owner}/${repo.name} run ${run.id}`;
        const records = await gone(where, () => guard(() => history(run, apiOf())));
        if (!records) {
          done += run.latest.number;
          continue;
        }
        for (const [i, a] of records.entries()) {
          if (failedAttempt(a)) {
            const judgement = await gone(`${where} attempt ${a.number}`, () =>
              guard(() => judged(run, a, all, apiOf(), configOf)),
            );
            if (judgement) attempts.push(examined(run, a, records[i + 1], judgement));
          }
          done++;
          deps.progress?.(done, planned);
        }
      }
    }
  } catch (err) {
    if (!(err instanceof Stopped)) throw err;
    complete = false;
  }
  if (attempts.some((a) => a.judgement.evidenceGone)) {
    const n = attempts.filter((a) => a.judgement.evidenceGone).length;
    notes.push(`${n} attempt(s) judged without some job's log or annotations: GitHub no longer keeps them`);
  }
  if (attempts.length > 0) notes.push(STALENESS_SOURCE);
  return {
    repositories: input.repositories.length,
    runsListed,
    runsExamined: listings.reduce((n, l) => n + l.runs.length, 0),
    attempts,
    complete,
    planned,
    done,
    notes,
  };

  function api(repo: RepoName): RepoApi {
    return new RepoApi(deps.clients, repo.owner, repo.name, deps.graphqlUrl);
  }

  /** Attempts 1..latest of a run; the earlier ones read once, then kept. */
  /** What GitHub no longer has (404, 410) is said in a note and left out; any other fault stops the backtest. */
  async function gone<T>(where: string, read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (err) {
      const status = statusOf(err instanceof NotFoundError ? err.cause : err);
      if (status !== 404 && status !== 410) throw err;
      notes.push(`${where}: GitHub no longer has it (${status}); left out`);
      return undefined;
    }
  }

  function room(needed: number): void {
    if ((deps.headroom?.() ?? Infinity) < needed) throw new Stopped();
  }

  async function history(run: ListedRun, repoApi: RepoApi): Promise<AttemptRecord[]> {
    const out: AttemptRecord[] = [];
    let unread = 0;
    for (let n = 1; n < run.latest.number; n++) if (!deps.cache.attempt(key(run, n))) unread++;
    room(unread);
    for (let n = 1; n < run.latest.number; n++) {
      const k = key(run, n);
      let a = deps.cache.attempt(k);
      if (!a) {
        a = attemptOf((await repoApi.runRecord(run.id, n)) as HistoryRecord);
        await deps.cache.keep(k, { attempt: a });
      }
      out.push(a);
    }
    out.push(run.latest);
    return out;
  }

  async function judged(
    run: ListedRun,
    a: AttemptRecord,
    listed: readonly ListedRun[],
    repoApi: RepoApi,
    configOf: () => Promise<RepoConfig>,
  ): Promise<Judgement> {
    const k = key(run, a.number);
    const kept = deps.cache.judgement(k);
    if (kept) return kept;
    room(JUDGEMENT_READS);
    const allow = deps.repositoryAllowList;
    const full = `${run.repository.owner}/${run.repository.name}`;
    const config = await configOf();
    const judgement = await guardWith(deps.refused, () =>
      judgeAttempt(run, a, staleThen(run, a, listed), {
        api: repoApi,
        config,
        installationId: deps.installationId,
        ...(allow && { repositoryAllowed: allow.includes(full) }),
        deps: deps.evaluation,
      }),
    );
    await deps.cache.keep(k, { judgement });
    return judgement;
  }
}

/** A spent request budget ends the backtest where it is; any other fault is the caller's. */
async function guardWith<T>(refused: (() => number) | undefined, work: () => Promise<T>): Promise<T> {
  const before = refused?.() ?? 0;
  let value: T;
  try {
    value = await work();
  } catch (err) {
    if (isBudgetSpent(err)) throw new Stopped();
    throw err;
  }
  if ((refused?.() ?? 0) !== before) throw new Stopped();
  return value;
}

function memo<T>(make: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= make());
}
