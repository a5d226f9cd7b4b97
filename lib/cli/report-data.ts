import type { DecidedAttempt, ReportFacts } from '../records.js';
import { DEAD_LETTERED } from '../replay/dead-letters.js';
import { isRerunDecision, RERUN_OUTCOMES, type RerunOutcome } from '../model.js';
import { type RecoveryFigures, recoveryFigures } from './report-recovery.js';

/** The GitHub-hosted Linux 2-core rate, in USD: a yardstick when the fleet's own rate is not given. */
export const DEFAULT_PRICE_PER_MINUTE = 0.008;
export const DEFAULT_TOP = 10;

export interface ReportOptions {
  readonly sinceMs: number;
  readonly untilMs: number;
  readonly pricePerMinute: number;
  readonly top: number;
}

export type OutcomeShare = RerunOutcome | 'pending';
export const OUTCOME_SHARES: readonly OutcomeShare[] = [...RERUN_OUTCOMES, 'pending'];

export interface Count {
  readonly name: string;
  readonly count: number;
}

export interface Loss {
  readonly name: string;
  readonly minutes: number;
  readonly jobs: number;
}

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
  readonly startedAt?: unknown;
  readonly completedAt?: unknown;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
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

/** The report's numbers from the ledger's facts of the period. Pure: the same facts give the same report. */
export function summarise(facts: ReportFacts, o: ReportOptions): Report {
  const inPeriod = (t: number) => t >= o.sinceMs && t <= o.untilMs;
  const decisions = facts.decisions.filter((d) => d.decidedAt !== undefined && inPeriod(d.decidedAt));

  const byDecision = new Map<string, number>();
  for (const d of decisions) byDecision.set(d.decision ?? UNKNOWN, (byDecision.get(d.decision ?? UNKNOWN) ?? 0) + 1);

  const outcomeOf = new Map(facts.outcomes.map((f) => [`${f.repository}#${f.runId}#${f.runAttempt}`, f.outcome]));
  const outcomes = Object.fromEntries(OUTCOME_SHARES.map((s) => [s, 0])) as Record<OutcomeShare, number>;
  const reruns = decisions.filter((d) => isRerunDecision(d.decision));
  for (const d of reruns) outcomes[outcomeOf.get(`${d.repository}#${d.runId}#${d.runAttempt + 1}`) ?? 'pending']++;

  const { bucket, size } = bucketOf(o.untilMs - o.sinceMs);
  const first = Math.floor(o.sinceMs / size) * size;
  const buckets = Array.from({ length: Math.floor((o.untilMs - first) / size) + 1 }, (_, i) => ({
    start: first + i * size,
    minutes: 0,
    jobs: 0,
  }));
  const repos = new Map<string, { name: string; minutes: number; jobs: number }>();
  const workflows = new Map<
    string,
    { name: string; repository: string; workflow: string; minutes: number; jobs: number }
  >();
  const byEvidence = new Map<string, number>();
  let jobs = 0;
  let withoutTimes = 0;
  let minutes = 0;
  for (const d of decisions) {
    for (const job of lostJobs(d)) {
      const m = minutesOf(job);
      jobs++;
      const source = typeof job.source === 'string' ? job.source : UNKNOWN;
      byEvidence.set(source, (byEvidence.get(source) ?? 0) + 1);
      if (m === undefined) withoutTimes++;
      const mins = m ?? 0;
      minutes += mins;
      const b = buckets[Math.floor((d.decidedAt! - first) / size)];
      if (b) {
        b.minutes += mins;
        b.jobs++;
      }
      const repo = repos.get(d.repository) ?? { name: d.repository, minutes: 0, jobs: 0 };
      repos.set(d.repository, { ...repo, minutes: repo.minutes + mins, jobs: repo.jobs + 1 });
      const wfName = typeof d.details?.workflow === 'string' ? d.details.workflow : UNKNOWN;
      const key = `${d.repository}\u0000${wfName}`;
      const wf = workflows.get(key) ?? {
        name: `${d.repository} · ${wfName}`,
        repository: d.repository,
        workflow: wfName,
        minutes: 0,
        jobs: 0,
      };
      workflows.set(key, { ...wf, minutes: wf.minutes + mins, jobs: wf.jobs + 1 });
    }
  }

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
    byType.set(i.instanceType ?? UNKNOWN, (byType.get(i.instanceType ?? UNKNOWN) ?? 0) + 1);
    byZone.set(i.availabilityZone ?? UNKNOWN, (byZone.get(i.availabilityZone ?? UNKNOWN) ?? 0) + 1);
  }

  const roundLoss = <T extends Loss>(l: T): T => ({ ...l, minutes: round(l.minutes, 1) });
  return {
    period: { since: new Date(o.sinceMs).toISOString(), until: new Date(o.untilMs).toISOString(), bucket },
    decisions: {
      total: decisions.length,
      byDecision: counted(byDecision),
      deadLettered: decisions.filter((d) => d.reason?.startsWith(DEAD_LETTERED)).length,
    },
    reruns: { total: reruns.length, outcomes },
    requeued: byDecision.get('requeued') ?? 0,
    lost: {
      jobs,
      jobsWithoutTimes: withoutTimes,
      minutes: round(minutes, 1),
      pricePerMinute: o.pricePerMinute,
      cost: round(minutes * o.pricePerMinute),
    },
    lostByEvidence: counted(byEvidence),
    overTime: buckets.map((b) => ({
      start: new Date(b.start).toISOString(),
      minutes: round(b.minutes, 1),
      jobs: b.jobs,
    })),
    interruptions: { total: interrupted.size, byInstanceType: counted(byType), byZone: counted(byZone) },
    topRepositories: ranked(repos.values(), o.top).map(roundLoss),
    topWorkflows: ranked(workflows.values(), o.top).map(roundLoss),
    recovery: recoveryFigures(decisions),
  };
}

/** The share of finished re-runs that recovered, or undefined when none finished. */
export function recoveredShare(r: Report): number | undefined {
  const finished = r.reruns.total - r.reruns.outcomes.pending;
  return finished > 0 ? r.reruns.outcomes.recovered / finished : undefined;
}
