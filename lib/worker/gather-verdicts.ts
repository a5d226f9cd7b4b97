import type { AnnotationEvidence, JobEvidence } from '../classify/classify-job.js';
import { classifyJob } from '../classify/classify-job.js';
import { ScanBudget } from '../classify/scan-budget.js';
import type { JobOwner } from '../config/signal-scope.js';
import { heldClock } from '../util/held-clock.js';
import { RateLimitedError } from '../errors.js';
import type { RepoApi } from '../github/repo-api.js';
import type { JobFacts, JobVerdict, RunnerSignal, SignalWindow, TextPattern } from '../model.js';
import type { Log } from '../obs/types.js';
import { mapBounded } from '../util/bounded.js';

/** At most this many jobs are worked on at once where per-job calls are needed. */
export const JOB_CONCURRENCY = 8;

/** Where a job's evidence comes from (GitHub, the signal table) and the limits on reading it. */
export interface EvidenceSources {
  readonly api: RepoApi;
  readonly signals?: {
    forRunner(
      name: string | null,
      completedAt: string | null,
      w: SignalWindow,
      owner?: JobOwner,
    ): Promise<RunnerSignal[]>;
  };
  /** Whose jobs these are: an agent's signal counts only when its scope includes them (and each job's runner group). */
  readonly owner?: JobOwner;
  readonly signalWindow: SignalWindow;
  readonly extraPatterns: readonly TextPattern[];
  /** Bounds the pattern work of this decision; a fresh one on the process clock when absent. */
  readonly scanBudget?: ScanBudget;
  readonly logHosts: readonly string[];
  readonly logWindowBytes: number;
  readonly log: Log;
  /** reprise ended this attempt early: the bot's cancel note on its jobs is its own, not a person's. */
  readonly endedByReprise?: boolean;
}

/** The candidates' verdicts, and what was left unread once the run was settled. */
export interface GatheredVerdicts {
  readonly verdicts: JobVerdict[];
  /** Candidates left unexamined because a genuine verdict already settled the run. */
  readonly unexamined: number;
  readonly signalLookupFailed: boolean;
}

/** Lets the event loop run what waits (the intake, other decisions on this process) before the next job's matching. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const settles = (v: JobVerdict): boolean => v.verdict === 'genuine' || v.verdict === 'vetoed';

/**
 * Gathers evidence for the candidates as cheaply as the verdicts allow: signals from the
 * table, annotations in one GraphQL query (REST for the jobs it misses and those with more than
 * a page, read in full up to the classifier's cap), logs only for
 * jobs the annotations cannot settle, and nothing more once one job is genuine.
 */
export async function gatherVerdicts(candidates: readonly JobFacts[], src: EvidenceSources): Promise<GatheredVerdicts> {
  // The process's own time, not the wall's: a busy host must not cut a run's evidence short.
  const budget = src.scanBudget ?? new ScanBudget(undefined, heldClock());
  const { signals, signalLookupFailed } = await lookupSignals(candidates, src);
  const annotations = await annotationsByGraphql(candidates, src);
  const verdicts = new VerdictsSoFar(signals, src, budget);
  const viaRest: JobFacts[] = [];
  for (const job of candidates) {
    const ann = annotations.get(job.id);
    if (ann) {
      // One job's matching at a time, so the intake and other decisions on this process get to run.
      await yieldToEventLoop();
      verdicts.classify(job, ann);
    } else viaRest.push(job);
  }
  const rest = await mapBounded(
    viaRest,
    JOB_CONCURRENCY,
    async (job) => verdicts.classify(job, await src.api.annotationsByRest(job.id, budget.limits.textsPerWindow)),
    () => verdicts.settled,
  );
  const logs = await mapBounded(
    verdicts.needLog,
    JOB_CONCURRENCY,
    async ({ job, evidence }) => verdicts.classifyWithLog(job, evidence),
    () => verdicts.settled,
  );
  const unexamined = rest.skipped.length + logs.skipped.length;
  return { verdicts: verdicts.verdicts, unexamined, signalLookupFailed };
}

/** Each candidate's runner signals, looked up side by side; a failed lookup leaves the text evidence to decide. */
async function lookupSignals(
  candidates: readonly JobFacts[],
  src: EvidenceSources,
): Promise<{ signals: Map<number, RunnerSignal[]>; signalLookupFailed: boolean }> {
  let signalLookupFailed = false;
  const signals = new Map<number, RunnerSignal[]>();
  if (src.signals) {
    const lookup = src.signals;
    await mapBounded(candidates, JOB_CONCURRENCY, async (job) => {
      try {
        const owner = src.owner && { ...src.owner, runnerGroup: job.runnerGroupName ?? null };
        signals.set(job.id, await lookup.forRunner(job.runnerName, job.completedAt, src.signalWindow, owner));
      } catch (err) {
        signalLookupFailed = true;
        src.log.warn('signal lookup failed; deciding on text evidence', {
          job_id: job.id,
          error: (err as Error).message,
        });
      }
    });
  }
  return { signals, signalLookupFailed };
}

/** The candidates' annotations in one GraphQL query; on a failure other than a rate limit, none (REST reads them). */
async function annotationsByGraphql(
  candidates: readonly JobFacts[],
  src: EvidenceSources,
): Promise<Map<number, AnnotationEvidence>> {
  const annotations = new Map<number, AnnotationEvidence>();
  try {
    for (const [id, list] of await src.api.annotationsByGraphql(candidates)) annotations.set(id, list);
  } catch (err) {
    // A rate limit covers REST as well (the secondary limits are shared): the message waits instead.
    if (err instanceof RateLimitedError) throw err;
    src.log.warn('GraphQL annotations failed; reading them over REST', { error: (err as Error).message });
  }
  return annotations;
}

/** The verdicts so far, whether one settled the run, and the jobs whose logs must still be read. */
class VerdictsSoFar {
  readonly verdicts: JobVerdict[] = [];
  readonly needLog: { job: JobFacts; evidence: JobEvidence }[] = [];
  settled = false;

  constructor(
    private readonly signals: ReadonlyMap<number, RunnerSignal[]>,
    private readonly src: EvidenceSources,
    private readonly budget: ScanBudget,
  ) {}

  /** Classifies the job on its signals and annotations; one they cannot settle waits for its log. */
  classify(job: JobFacts, ann: AnnotationEvidence): void {
    const evidence: JobEvidence = {
      signals: this.signals.get(job.id) ?? [],
      annotations: ann,
      ...(this.src.endedByReprise && { endedByReprise: true }),
    };
    const c = classifyJob(job, evidence, this.src.extraPatterns, this.budget);
    if (c.kind === 'verdict') this.settle(c.verdict);
    else this.needLog.push({ job, evidence });
  }

  /** Reads the job's log (its window, from the allowed hosts) and classifies the job with it. */
  async classifyWithLog(job: JobFacts, evidence: JobEvidence): Promise<void> {
    const { src } = this;
    const log = await src.api.jobLog(job.id, {
      allowHosts: src.logHosts,
      windowBytes: src.logWindowBytes,
      log: src.log,
    });
    const c = classifyJob(job, { ...evidence, log }, src.extraPatterns, this.budget);
    if (c.kind === 'verdict') this.settle(c.verdict);
  }

  private settle(v: JobVerdict): void {
    this.verdicts.push(v);
    if (settles(v)) this.settled = true;
  }
}
