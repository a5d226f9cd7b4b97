/**
 * What reprise would have done against what people did, for each failed attempt. Pure: the
 * judgement and the run's next attempt in, one class out.
 */
import type { Actor, AttemptRecord, ListedRun } from './history.js';
import type { Judgement } from './judge.js';

/** How reprise and people compare on one failed attempt: both re-ran, only one did, or neither. */
export const CLASSES = ['agreed_rerun', 'reprise_only', 'people_only', 'agreed_leave'] as const;
/** One of CLASSES. */
export type BacktestClass = (typeof CLASSES)[number];

/** What people did after the attempt failed: the next attempt, who started it and when. */
export interface Rerun {
  readonly by: Actor | null;
  /** From the failed attempt's completion to the next attempt's start. */
  readonly delayMs: number;
  readonly conclusion: string | null;
  readonly passed: boolean;
}

/** One failed attempt of the past: reprise's judgement of it beside what people did next, for the report. */
export interface ExaminedAttempt {
  readonly repository: string;
  readonly workflow: string;
  readonly runId: number;
  readonly attempt: number;
  readonly class: BacktestClass;
  readonly url: string;
  readonly completedAt: string;
  readonly conclusion: string | null;
  readonly judgement: Judgement;
  /** Absent when nobody started another attempt. */
  readonly rerun?: Rerun;
  /** The people's waiting time a re-run by reprise would have saved (agreed re-runs). */
  readonly savedDelayMs: number;
  /** The command that reproduces reprise's side of it. */
  readonly explain: string;
}

/** The class of an attempt from whether reprise would have re-run it and whether people did. */
export function classify(wouldRerun: boolean, rerunByPeople: boolean): BacktestClass {
  if (wouldRerun) return rerunByPeople ? 'agreed_rerun' : 'reprise_only';
  return rerunByPeople ? 'people_only' : 'agreed_leave';
}

/** What people did after a failed attempt, read from the attempt that followed it; undefined when none did. */
export function rerunOf(failed: AttemptRecord, next: AttemptRecord | undefined): Rerun | undefined {
  if (!next) return undefined;
  const delay = Date.parse(next.startedAt) - Date.parse(failed.completedAt);
  return {
    by: next.actor,
    delayMs: Number.isFinite(delay) ? Math.max(0, delay) : 0,
    conclusion: next.conclusion,
    passed: next.conclusion === 'success',
  };
}

/** A failed attempt examined: its judgement, the re-run people made, the wait reprise would have saved. */
export function examined(
  run: ListedRun,
  failed: AttemptRecord,
  next: AttemptRecord | undefined,
  judgement: Judgement,
): ExaminedAttempt {
  const rerun = rerunOf(failed, next);
  const cls = classify(judgement.wouldRerun, rerun !== undefined);
  const repository = `${run.repository.owner}/${run.repository.name}`;
  return {
    repository,
    workflow: run.workflowName,
    runId: run.id,
    attempt: failed.number,
    class: cls,
    url: failed.number === run.latest.number ? run.htmlUrl : `${run.htmlUrl}/attempts/${failed.number}`,
    completedAt: failed.completedAt,
    conclusion: failed.conclusion,
    judgement,
    ...(rerun && { rerun }),
    savedDelayMs: cls === 'agreed_rerun' && rerun ? rerun.delayMs : 0,
    explain: `reprise explain ${repository}#${run.id}@${failed.number}`,
  };
}
