import type { DecidedAttempt } from '../records.js';
import { isRerunDecision } from '../model.js';

/** The headline figure of early recovery: how fast lost runs came back, and what waiting for GitHub cost. */
export interface RecoveryFigures {
  /** Re-runs with an exact signal; of them, those reprise ended before GitHub failed the job. */
  readonly reruns: number;
  readonly early: number;
  /** Seconds from the loss to the accepted re-run: median and 95th percentile; null with no re-run. */
  readonly p50SecondsToRerun: number | null;
  readonly p95SecondsToRerun: number | null;
  /** Without early recovery: minutes GitHub took to fail the lost jobs, in all, and the median per run. */
  readonly waitedForGitHubMinutes: number;
  readonly p50WaitedForGitHubSeconds: number | null;
}

interface RecoveryDetail {
  readonly early?: unknown;
  readonly seconds_to_rerun?: unknown;
  readonly waited_for_github_seconds?: unknown;
}

/** The value at `q` (0-1) of sorted numbers, nearest rank; null when there are none. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The recovery figures of the period's re-run decisions, from each decision's recorded `recovery`. */
export function recoveryFigures(decisions: readonly DecidedAttempt[]): RecoveryFigures {
  const timed = decisions
    .filter((d) => isRerunDecision(d.decision))
    .map((d) => d.details?.recovery as RecoveryDetail | undefined)
    .filter((r): r is RecoveryDetail => typeof r === 'object' && r !== null && typeof r.seconds_to_rerun === 'number');
  const toRerun = timed.map((r) => r.seconds_to_rerun as number).sort((a, b) => a - b);
  const waited = timed
    .map((r) => r.waited_for_github_seconds)
    .filter((w): w is number => typeof w === 'number')
    .sort((a, b) => a - b);
  return {
    reruns: timed.length,
    early: timed.filter((r) => r.early === true).length,
    p50SecondsToRerun: percentile(toRerun, 0.5),
    p95SecondsToRerun: percentile(toRerun, 0.95),
    waitedForGitHubMinutes: Math.round((waited.reduce((a, b) => a + b, 0) / 60) * 10) / 10,
    p50WaitedForGitHubSeconds: percentile(waited, 0.5),
  };
}

const secs = (n: number | null): string => (n === null ? '—' : `${n} s`);
const mins = (n: number): string => `${n.toLocaleString('en-US', { maximumFractionDigits: 1 })} min`;

/** The time to recovery in the text report, and what waiting for GitHub's lease cost where early recovery was off. */
export function recoveryLines(x: RecoveryFigures): string[] {
  if (x.reruns === 0) return ['Time to recovery: no re-run with an exact signal in the period'];
  const lines = [
    `Time to recovery (from the loss to the accepted re-run, ${x.reruns} re-run(s) with an exact signal, ${x.early} ended early): p50 ${secs(x.p50SecondsToRerun)}, p95 ${secs(x.p95SecondsToRerun)}`,
  ];
  if (x.p50WaitedForGitHubSeconds !== null) {
    lines.push(
      `Minutes waited for GitHub to fail lost jobs: ${mins(x.waitedForGitHubMinutes)} (p50 ${secs(x.p50WaitedForGitHubSeconds)} a run): what early_recovery would save`,
    );
  }
  return lines;
}

/** The page's card for the time to recovery, when a re-run had an exact signal. */
export function recoveryCard(
  x: RecoveryFigures,
  card: (title: string, value: string, note?: string) => string,
): string[] {
  if (x.reruns === 0) return [];
  const note = `p50 from the loss; ${x.early} of ${x.reruns} ended early; waited for GitHub ${mins(x.waitedForGitHubMinutes)}`;
  return [card('time to recovery', secs(x.p50SecondsToRerun), note)];
}
