/** The backtest's figures: counts per class, time saved, and what the page's charts draw. Pure. */
import type { JobLine } from './judge.js';
import { type BacktestClass, CLASSES, type ExaminedAttempt } from './compare.js';

/** A name and how many times it was seen, for the report's top lists. */
export interface Tally {
  readonly name: string;
  readonly count: number;
}

/** A backtest's figures: attempts by class, re-runs by people and bots, waits saved, minutes kept, top lists. */
export interface BacktestSummary {
  readonly classes: Readonly<Record<BacktestClass, number>>;
  /** Attempts reprise would have re-run (agreed re-runs and reprise only). */
  readonly wouldRerun: number;
  /** Of the agreed re-runs, those whose next attempt passed. */
  readonly agreedPassed: number;
  /** People's waiting time reprise would have saved: the sum of the agreed re-runs' delays. */
  readonly savedDelayMs: number;
  readonly medianDelayMs: number | null;
  /**
   * Runner minutes of the jobs that passed in attempts reprise would re-run: a re-run of failed
   * jobs keeps them, a new push or a full re-run runs them again.
   */
  readonly runnerMinutesKept: number;
  readonly reruns: { readonly byPeople: number; readonly byBots: number };
  readonly perDay: readonly { readonly day: string; readonly count: number }[];
  readonly delays: readonly Tally[];
  readonly topRepositories: readonly Tally[];
  readonly topWorkflows: readonly Tally[];
  readonly evidence: readonly Tally[];
}

const DELAY_BUCKETS: readonly [number, string][] = [
  [5 * 60_000, 'under 5 min'],
  [15 * 60_000, '5 to 15 min'],
  [60 * 60_000, '15 min to 1 h'],
  [4 * 3_600_000, '1 to 4 h'],
  [24 * 3_600_000, '4 to 24 h'],
  [Infinity, 'over a day'],
];

function tally(names: readonly string[], top = 8): Tally[] {
  const m = new Map<string, number>();
  for (const n of names) m.set(n, (m.get(n) ?? 0) + 1);
  return [...m.entries()]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
    .slice(0, top);
}

/**
 * What kind of evidence decided an infra verdict: the signal, or the runner-loss pattern's name and
 * where it was read; other families by where they were read. Read from the verdict's fields: a line
 * without them (a cache of an older version) counts by its source alone.
 */
export function evidenceFamily(j: Pick<JobLine, 'source' | 'family' | 'pattern'>): string {
  if (j.source === 'signal') return 'exact signal';
  return j.family === 'runner-loss' && j.pattern ? `${j.pattern} (${j.source ?? 'text'})` : (j.source ?? 'unknown');
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The figures of a backtest from its examined attempts, over the period from `sinceMs` to `untilMs`. */
export function summarize(attempts: readonly ExaminedAttempt[], sinceMs: number, untilMs: number): BacktestSummary {
  const classes = Object.fromEntries(CLASSES.map((c) => [c, 0])) as Record<BacktestClass, number>;
  for (const a of attempts) classes[a.class]++;
  const would = attempts.filter((a) => a.judgement.wouldRerun);
  const agreed = attempts.filter((a) => a.class === 'agreed_rerun');
  const rerun = attempts.filter((a) => a.rerun);
  const days: { day: string; count: number }[] = [];
  for (let t = Date.UTC(...dayOf(sinceMs)); t <= untilMs; t += 86_400_000) {
    days.push({ day: new Date(t).toISOString().slice(0, 10), count: 0 });
  }
  for (const a of would) {
    const d = days.find((x) => x.day === a.completedAt.slice(0, 10));
    if (d) d.count++;
  }
  const delays = DELAY_BUCKETS.map(([, label]) => ({ name: label, count: 0 }));
  for (const a of rerun) {
    const i = DELAY_BUCKETS.findIndex(([max]) => a.rerun!.delayMs < max);
    delays[i]!.count++;
  }
  return {
    classes,
    wouldRerun: would.length,
    agreedPassed: agreed.filter((a) => a.rerun?.passed).length,
    savedDelayMs: agreed.reduce((n, a) => n + a.savedDelayMs, 0),
    medianDelayMs: median(rerun.map((a) => a.rerun!.delayMs)),
    runnerMinutesKept:
      Math.round(
        would.reduce(
          (n, a) =>
            n + a.judgement.jobs.filter((j) => j.conclusion === 'success').reduce((m, j) => m + (j.minutes ?? 0), 0),
          0,
        ) * 10,
      ) / 10,
    reruns: {
      byPeople: rerun.filter((a) => !a.rerun!.by?.bot).length,
      byBots: rerun.filter((a) => a.rerun!.by?.bot).length,
    },
    perDay: days,
    delays,
    topRepositories: tally(would.map((a) => a.repository)),
    topWorkflows: tally(would.map((a) => `${a.repository} · ${a.workflow}`)),
    evidence: tally(would.flatMap((a) => a.judgement.jobs.filter((j) => j.verdict === 'infra').map(evidenceFamily))),
  };
}

function dayOf(ms: number): [number, number, number] {
  const d = new Date(ms);
  return [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
}
