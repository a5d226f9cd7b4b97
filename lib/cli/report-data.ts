import type { DecidedAttempt, ReportFacts } from '../records.js';
import { DEAD_LETTERED } from '../replay/dead-letters.js';
import { isRerunDecision, RERUN_OUTCOMES, type RerunOutcome } from '../model.js';
import { type RecoveryFigures, recoveryFigures } from './report-recovery.js';

/** The GitHub-hosted Linux 2-core rate, in USD: a yardstick when the fleet's own rate is not given. */
export const DEFAULT_PRICE_PER_MINUTE = 0.008;
/** How many repositories and workflows the report's top lists show unless `--top` says. */
export const DEFAULT_TOP = 10;

/** The report's period, the price of a runner minute, and the length of its top lists. */
export interface ReportOptions {
  readonly sinceMs: number;
  readonly untilMs: number;
  readonly pricePerMinute: number;
  readonly top: number;
}

/** How a re-run attempt ended, or `pending` while it has not. */
export type OutcomeShare = RerunOutcome | 'pending';
/** Every outcome share, in the order the report shows them. */
export const OUTCOME_SHARES: readonly OutcomeShare[] = [...RERUN_OUTCOMES, 'pending'];

/** A name and how many times it was counted. */
export interface Count {
  readonly name: string;
  readonly count: number;
}

/** What one repository or workflow lost: minutes and jobs. */
export interface Loss {
  readonly name: string;
  readonly minutes: number;
  readonly jobs: number;
}

/** The figures of `reprise report` for a period, as its text, HTML and JSON show them. */
export interface Report {
  readonly period: { readonly since: string; readonly until: string; readonly bucket: 'hour' | 'day' | 'week' };
  /** Run attempts decided, and how. */
  readonly decisions: {
    readonly total: number;
    readonly byDecision: readonly Count[];
    /** Abandoned when their message went to the dead-letter queue: `reprise replay --dead-letters` redrives them. */
    readonly deadLettered: number;
  };
  /** Re-runs reprise made in the period and how their attempts ended (`pending`: not yet). */
  readonly reruns: { readonly total: number; readonly outcomes: Readonly<Record<OutcomeShare, number>> };
  /** Merge-group runs lost to infrastructure whose pull request reprise put back in the merge queue. */
  readonly requeued: number;
  /** Jobs judged lost to infrastructure and their own running time. */
  readonly lost: {
    readonly jobs: number;
    /** Lost jobs recorded without start and end times (decided before times were recorded). */
    readonly jobsWithoutTimes: number;
    readonly minutes: number;
    readonly pricePerMinute: number;
    readonly cost: number;
  };
  /** Lost jobs by the evidence that judged them lost: `signal`, `annotations`, `logs`, `platform`, … */
  readonly lostByEvidence: readonly Count[];
  /**
   * Lost jobs by the name of the pattern that judged them lost (`self-hosted-lost`, `not-acquired`, …),
   * read from the recorded `pattern`; jobs decided by a signal, or recorded before patterns were, are not in it.
   */
  readonly lostByPattern: readonly Count[];
  readonly overTime: readonly { readonly start: string; readonly minutes: number; readonly jobs: number }[];
  /** Instances with a spot interruption warning, each counted once. */
  readonly interruptions: {
    readonly total: number;
    readonly byInstanceType: readonly Count[];
    readonly byZone: readonly Count[];
  };
  readonly topRepositories: readonly Loss[];
  readonly topWorkflows: readonly (Loss & { readonly repository: string; readonly workflow: string })[];
  /** Time to recovery of re-runs whose lost jobs carried an exact signal, counted from the loss. */
  readonly recovery: RecoveryFigures;
  /** The operator's pauses in force when the report was made (`reprise pause`), as sentences. */
  readonly pausedNow?: readonly string[];
}

interface JobDetail {
  readonly verdict?: unknown;
  readonly source?: unknown;
  /** Recorded since verdicts carry it; absent on older records. */
  readonly pattern?: unknown;
  readonly startedAt?: unknown;
  readonly completedAt?: unknown;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The name a count takes when the record does not say (a workflow, an evidence source). */
export const UNKNOWN = 'unknown';

/** A lost job's own minutes, or undefined when its times were not recorded. */
function minutesOf(job: JobDetail): number | undefined {
  if (typeof job.startedAt !== 'string' || typeof job.completedAt !== 'string') return undefined;
  const ms = Date.parse(job.completedAt) - Date.parse(job.startedAt);
  return Number.isFinite(ms) && ms >= 0 ? ms / 60_000 : undefined;
}

const lostJobs = (d: DecidedAttempt): JobDetail[] => {
  const jobs = d.details?.jobs;
  return Array.isArray(jobs) ? (jobs as JobDetail[]).filter((j) => j?.verdict === 'infra') : [];
};

const counted = (m: Map<string, number>): Count[] =>
  [...m].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));

const ranked = <T extends Loss>(rows: Iterable<T>, top: number): T[] =>
  [...rows]
    .filter((r) => r.minutes > 0 || r.jobs > 0)
    .sort((a, b) => b.minutes - a.minutes || b.jobs - a.jobs || a.name.localeCompare(b.name))
    .slice(0, top);

const round = (n: number, places = 2): number => Math.round(n * 10 ** places) / 10 ** places;

function bucketOf(spanMs: number): { bucket: Report['period']['bucket']; size: number } {
  if (spanMs <= 2 * DAY) return { bucket: 'hour', size: HOUR };
  if (spanMs <= 120 * DAY) return { bucket: 'day', size: DAY };
  return { bucket: 'week', size: 7 * DAY };
}

type Bucket = { readonly start: number; minutes: number; jobs: number };
type WorkflowLoss = Loss & { readonly repository: string; readonly workflow: string };

/** The period cut into hours, days or weeks, each with the minutes and jobs lost in it. */
function bucketsOf(o: ReportOptions): {
  bucket: Report['period']['bucket'];
  size: number;
  first: number;
  buckets: Bucket[];
} {
  const { bucket, size } = bucketOf(o.untilMs - o.sinceMs);
  const first = Math.floor(o.sinceMs / size) * size;
  const buckets = Array.from({ length: Math.floor((o.untilMs - first) / size) + 1 }, (_, i) => ({
    start: first + i * size,
    minutes: 0,
    jobs: 0,
  }));
  return { bucket, size, first, buckets };
}

const bump = (m: Map<string, number>, name: string): void => {
  m.set(name, (m.get(name) ?? 0) + 1);
};

/** The lost jobs of the decisions, added up: minutes, jobs, by evidence, by pattern, by repository and workflow. */
class LostJobs {
  jobs = 0;
  withoutTimes = 0;
  minutes = 0;
  readonly byEvidence = new Map<string, number>();
  readonly byPattern = new Map<string, number>();
  readonly repos = new Map<string, Loss>();
  readonly workflows = new Map<string, WorkflowLoss>();

  constructor(private readonly slots: ReturnType<typeof bucketsOf>) {}

  add(d: DecidedAttempt, job: JobDetail): void {
    const m = minutesOf(job);
    this.jobs++;
    bump(this.byEvidence, typeof job.source === 'string' ? job.source : UNKNOWN);
    if (typeof job.pattern === 'string') bump(this.byPattern, job.pattern);
    if (m === undefined) this.withoutTimes++;
    const mins = m ?? 0;
    this.minutes += mins;
    const { buckets, size, first } = this.slots;
    const b = buckets[Math.floor((d.decidedAt! - first) / size)];
    if (b) {
      b.minutes += mins;
      b.jobs++;
    }
    const repo = this.repos.get(d.repository) ?? { name: d.repository, minutes: 0, jobs: 0 };
    this.repos.set(d.repository, { ...repo, minutes: repo.minutes + mins, jobs: repo.jobs + 1 });
    const wfName = typeof d.details?.workflow === 'string' ? d.details.workflow : UNKNOWN;
    const key = `${d.repository}\u0000${wfName}`;
    const wf = this.workflows.get(key) ?? {
      name: `${d.repository} · ${wfName}`,
      repository: d.repository,
      workflow: wfName,
      minutes: 0,
      jobs: 0,
    };
    this.workflows.set(key, { ...wf, minutes: wf.minutes + mins, jobs: wf.jobs + 1 });
  }
}

/** Instances with a spot interruption in the period, each once, by instance type and by zone. */
function interruptionsIn(facts: ReportFacts, inPeriod: (t: number) => boolean): Report['interruptions'] {
  // One interruption per instance: an event is recorded under each runner key, and EC2 and an agent may both report it.
  const interrupted = new Map<string, { instanceType?: string; availabilityZone?: string }>();
  for (const s of facts.signals) {
    if (s.kind !== 'spot-interruption' || !inPeriod(Date.parse(s.eventTime))) continue;
    const id = s.instanceId ?? s.eventId;
    const seen = interrupted.get(id) ?? {};
    interrupted.set(id, {
      ...seen,
      ...(s.instanceType && { instanceType: s.instanceType }),
      ...(s.availabilityZone && { availabilityZone: s.availabilityZone }),
    });
  }
  const byType = new Map<string, number>();
  const byZone = new Map<string, number>();
  for (const i of interrupted.values()) {
    bump(byType, i.instanceType ?? UNKNOWN);
    bump(byZone, i.availabilityZone ?? UNKNOWN);
  }
  return { total: interrupted.size, byInstanceType: counted(byType), byZone: counted(byZone) };
}

/** Re-runs of the period and how the attempts they started ended (`pending`: not yet). */
function rerunsOf(facts: ReportFacts, decisions: readonly DecidedAttempt[]): Report['reruns'] {
  const outcomeOf = new Map(facts.outcomes.map((f) => [`${f.repository}#${f.runId}#${f.runAttempt}`, f.outcome]));
  const outcomes = Object.fromEntries(OUTCOME_SHARES.map((s) => [s, 0])) as Record<OutcomeShare, number>;
  const reruns = decisions.filter((d) => isRerunDecision(d.decision));
  for (const d of reruns) outcomes[outcomeOf.get(`${d.repository}#${d.runId}#${d.runAttempt + 1}`) ?? 'pending']++;
  return { total: reruns.length, outcomes };
}

/** The report's numbers from the ledger's facts of the period. Pure: the same facts give the same report. */
export function summarise(facts: ReportFacts, o: ReportOptions): Report {
  const inPeriod = (t: number) => t >= o.sinceMs && t <= o.untilMs;
  const decisions = facts.decisions.filter((d) => d.decidedAt !== undefined && inPeriod(d.decidedAt));
  const byDecision = new Map<string, number>();
  for (const d of decisions) bump(byDecision, d.decision ?? UNKNOWN);
  const slots = bucketsOf(o);
  const lost = new LostJobs(slots);
  for (const d of decisions) for (const job of lostJobs(d)) lost.add(d, job);
  const roundLoss = <T extends Loss>(l: T): T => ({ ...l, minutes: round(l.minutes, 1) });
  return {
    period: {
      since: new Date(o.sinceMs).toISOString(),
      until: new Date(o.untilMs).toISOString(),
      bucket: slots.bucket,
    },
    decisions: {
      total: decisions.length,
      byDecision: counted(byDecision),
      deadLettered: decisions.filter((d) => d.reason?.startsWith(DEAD_LETTERED)).length,
    },
    reruns: rerunsOf(facts, decisions),
    requeued: byDecision.get('requeued') ?? 0,
    lost: {
      jobs: lost.jobs,
      jobsWithoutTimes: lost.withoutTimes,
      minutes: round(lost.minutes, 1),
      pricePerMinute: o.pricePerMinute,
      cost: round(lost.minutes * o.pricePerMinute),
    },
    lostByEvidence: counted(lost.byEvidence),
    lostByPattern: counted(lost.byPattern),
    overTime: slots.buckets.map((b) => ({
      start: new Date(b.start).toISOString(),
      minutes: round(b.minutes, 1),
      jobs: b.jobs,
    })),
    interruptions: interruptionsIn(facts, inPeriod),
    topRepositories: ranked(lost.repos.values(), o.top).map(roundLoss),
    topWorkflows: ranked(lost.workflows.values(), o.top).map(roundLoss),
    recovery: recoveryFigures(decisions),
  };
}

/** The share of finished re-runs that recovered, or undefined when none finished. */
export function recoveredShare(r: Report): number | undefined {
  const finished = r.reruns.total - r.reruns.outcomes.pending;
  return finished > 0 ? r.reruns.outcomes.recovered / finished : undefined;
}
