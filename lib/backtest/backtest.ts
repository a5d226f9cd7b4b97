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
import { guardWith, Stopped } from './requests.js';

/** What a backtest keeps between runs: attempt records and judgements, neither of which changes. */
export interface BacktestCache {
  attempt(key: string): AttemptRecord | undefined;
  judgement(key: string): Judgement | undefined;
  keep(key: string, v: { attempt?: AttemptRecord; judgement?: Judgement }): Promise<void>;
}

/** No cache: every attempt is read and judged afresh (no `--cache FILE`). */
export const noCache: BacktestCache = {
  attempt: () => undefined,
  judgement: () => undefined,
  keep: async () => undefined,
};

/** What a backtest reads with: GitHub, the repository configuration, the worker's evaluation, a cache and a budget. */
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

/** What to backtest: which repositories, since when, which workflows. */
export interface BacktestInput {
  readonly repositories: readonly RepoName[];
  readonly sinceMs: number;
  /** Workflow names (or file names) to keep; all when empty. */
  readonly workflows: readonly string[];
}

/** What a backtest found: every failed attempt examined, and how far it got before any budget stopped it. */
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

/** A repository's runs as listed, and those kept to examine. */
interface Listing {
  readonly repo: RepoName;
  readonly runs: ListedRun[];
  readonly all: ListedRun[];
}

/**
 * Which source decided whether a run was current: the history's listing. The worker's sources at
 * the time (the intake's record of the branch, checked against GitHub's delivery log) are not kept.
 */
export const STALENESS_SOURCE =
  "staleness judged from the history's listing of the runs (a newer run of the same workflow created before the attempt ended); the intake's record and GitHub's delivery log of that time are not kept";

/** One backtest as it goes: what it has examined and counted, and the notes it has for the reader. */
class BacktestPass {
  readonly notes: string[] = [];
  readonly attempts: ExaminedAttempt[] = [];
  readonly listings: Listing[] = [];
  runsListed = 0;
  planned = 0;
  done = 0;

  constructor(
    private readonly input: BacktestInput,
    private readonly deps: BacktestDeps,
  ) {}

  private guard<T>(work: () => Promise<T>): Promise<T> {
    return guardWith(this.deps.refused, work);
  }

  /** Lists every repository's runs of the period first, so progress can say how many attempts there are. */
  async list(): Promise<void> {
    for (const repo of this.input.repositories) {
      const runs = await this.guard(() => listRuns(this.deps.clients, repo, this.input.sinceMs));
      this.runsListed += runs.length;
      const kept = runs.filter((r) => wanted(r, this.input.workflows) && worthReading(r));
      this.listings.push({ repo, runs: kept, all: runs });
      // Each run's attempts up to the latest; the latest is known from the listing.
      this.planned += kept.reduce((n, r) => n + r.latest.number, 0);
    }
    this.deps.progress?.(0, this.planned);
  }

  /** Examines each run of one repository, its configuration read once when a judgement needs it. */
  async examineRepo({ repo, runs, all }: Listing): Promise<void> {
    let config: Promise<RepoConfig> | undefined;
    const configOf = () =>
      (config ??= this.deps.configSource.load(this.api(repo), repo.owner, repo.name, this.deps.defaults).then((c) => {
        if (c.error) this.notes.push(`${repo.owner}/${repo.name}: configuration error (${c.error}); defaults used`);
        return c.config;
      }));
    const apiOf = memo(() => this.api(repo));
    for (const run of runs)
      await this.examineRun(`${repo.owner}/${repo.name} run ${run.id}`, run, all, apiOf, configOf);
  }

  /** Judges each failed attempt of one run beside the attempt that followed it. */
  private async examineRun(
    where: string,
    run: ListedRun,
    all: readonly ListedRun[],
    apiOf: () => RepoApi,
    configOf: () => Promise<RepoConfig>,
  ): Promise<void> {
    const records = await this.gone(where, () => this.guard(() => this.history(run, apiOf())));
    if (!records) {
      this.done += run.latest.number;
      return;
    }
    for (const [i, a] of records.entries()) {
      if (failedAttempt(a)) {
        const judgement = await this.gone(`${where} attempt ${a.number}`, () =>
          this.guard(() => this.judged(run, a, all, apiOf(), configOf)),
        );
        if (judgement) this.attempts.push(examined(run, a, records[i + 1], judgement));
      }
      this.done++;
      this.deps.progress?.(this.done, this.planned);
    }
  }

  private api(repo: RepoName): RepoApi {
    return new RepoApi(this.deps.clients, repo.owner, repo.name, this.deps.graphqlUrl);
  }

  /** What GitHub no longer has (404, 410) is said in a note and left out; any other fault stops the backtest. */
  private async gone<T>(where: string, read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (err) {
      const status = statusOf(err instanceof NotFoundError ? err.cause : err);
      if (status !== 404 && status !== 410) throw err;
      this.notes.push(`${where}: GitHub no longer has it (${status}); left out`);
      return undefined;
    }
  }

  /** Stops the backtest between attempts when the budget has no room for the reads ahead. */
  private room(needed: number): void {
    if ((this.deps.headroom?.() ?? Infinity) < needed) throw new Stopped();
  }

  /** Attempts 1..latest of a run; the earlier ones read once, then kept. */
  private async history(run: ListedRun, repoApi: RepoApi): Promise<AttemptRecord[]> {
    const { cache } = this.deps;
    const out: AttemptRecord[] = [];
    let unread = 0;
    for (let n = 1; n < run.latest.number; n++) if (!cache.attempt(key(run, n))) unread++;
    this.room(unread);
    for (let n = 1; n < run.latest.number; n++) {
      const k = key(run, n);
      let a = cache.attempt(k);
      if (!a) {
        a = attemptOf((await repoApi.runRecord(run.id, n)) as HistoryRecord);
        await cache.keep(k, { attempt: a });
      }
      out.push(a);
    }
    out.push(run.latest);
    return out;
  }

  /** One attempt's judgement: kept from an earlier backtest, or made now and kept. */
  private async judged(
    run: ListedRun,
    a: AttemptRecord,
    listed: readonly ListedRun[],
    repoApi: RepoApi,
    configOf: () => Promise<RepoConfig>,
  ): Promise<Judgement> {
    const k = key(run, a.number);
    const kept = this.deps.cache.judgement(k);
    if (kept) return kept;
    this.room(JUDGEMENT_READS);
    const allow = this.deps.repositoryAllowList;
    const full = `${run.repository.owner}/${run.repository.name}`;
    const config = await configOf();
    const judgement = await guardWith(this.deps.refused, () =>
      judgeAttempt(run, a, staleThen(run, a, listed), {
        api: repoApi,
        config,
        installationId: this.deps.installationId,
        ...(allow && { repositoryAllowed: allow.includes(full) }),
        deps: this.deps.evaluation,
      }),
    );
    await this.deps.cache.keep(k, { judgement });
    return judgement;
  }

  /** The result, with a note when some evidence was judged without (GitHub's retention). */
  result(complete: boolean): BacktestResult {
    const gone = this.attempts.filter((a) => a.judgement.evidenceGone).length;
    if (gone > 0) {
      this.notes.push(`${gone} attempt(s) judged without some job's log or annotations: GitHub no longer keeps them`);
    }
    if (this.attempts.length > 0) this.notes.push(STALENESS_SOURCE);
    return {
      repositories: this.input.repositories.length,
      runsListed: this.runsListed,
      runsExamined: this.listings.reduce((n, l) => n + l.runs.length, 0),
      attempts: this.attempts,
      complete,
      planned: this.planned,
      done: this.done,
      notes: this.notes,
    };
  }
}

/**
 * Judges every failed attempt of the period's runs as reprise would have, beside what people did.
 * A spent request budget ends it early (`complete: false`), with what it examined so far.
 */
export async function backtest(input: BacktestInput, deps: BacktestDeps): Promise<BacktestResult> {
  const pass = new BacktestPass(input, deps);
  try {
    await pass.list();
    for (const listing of pass.listings) await pass.examineRepo(listing);
  } catch (err) {
    if (!(err instanceof Stopped)) throw err;
    return pass.result(false);
  }
  return pass.result(true);
}

function memo<T>(make: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= make());
}
