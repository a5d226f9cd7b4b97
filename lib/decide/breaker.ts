import type { JobVerdict, RerunOutcome } from '../model.js';

/** When automatic re-runs of an installation pause: evidence that re-runs keep dying. */
export interface BreakerSettings {
  /** Re-run outcomes in the window before the share is judged; 0 turns the breaker off. */
  readonly minOutcomes: number;
  readonly windowMs: number;
  /** Share of those outcomes that were `lost_again`, 0..1, at or above which it trips. */
  readonly lostShare: number;
  readonly coolDownMs: number;
}

/** The re-run outcomes of one installation in the breaker's window. */
export interface OutcomeCounts {
  readonly outcomes: number;
  readonly lostAgain: number;
}

/** The breaker of one installation as the decision sees it. */
export interface BreakerFacts extends OutcomeCounts {
  /** Epoch ms the pause ends; null while re-runs go. */
  readonly openUntil: number | null;
  /** The window the counts cover. */
  readonly windowMs: number;
}

/** True when the outcomes say the fleet keeps losing its re-runs. */
export function breakerTrips(c: OutcomeCounts, s: BreakerSettings): boolean {
  return s.minOutcomes > 0 && c.outcomes >= s.minOutcomes && c.lostAgain >= s.lostShare * c.outcomes;
}

/**
 * The outcome of a re-run attempt that ended red, from what its own decision learned: the
 * verdicts when they were read, else only the run's conclusion (a red attempt whose evidence
 * was never read is not counted as lost: the breaker trips on evidence).
 */
export function redOutcome(conclusion: 'failure' | 'cancelled', verdicts: readonly JobVerdict[]): RerunOutcome {
  if (verdicts.some((v) => v.veto === 'person' || v.veto === 'concurrency')) return 'cancelled';
  if (verdicts.some((v) => v.verdict === 'genuine' || v.veto === 'timeout')) return 'failed';
  if (verdicts.some((v) => v.verdict === 'infra')) return 'lost_again';
  return conclusion === 'cancelled' ? 'cancelled' : 'failed';
}

/** The decision log's words for a pause. */
export function pauseReason(b: BreakerFacts): string {
  const until = b.openUntil === null ? 'now' : new Date(b.openUntil).toISOString();
  return (
    `automatic re-runs of this installation are paused until ${until}: ${b.lostAgain} of the last ` +
    `${b.outcomes} re-run attempts within ${Math.round(b.windowMs / 60_000)} min were lost again (fleet or image broken?)`
  );
}
