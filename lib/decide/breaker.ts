import type { JobVerdict, RerunOutcome } from '../model.js';

/**
 * When automatic re-runs pause: evidence that re-runs keep dying. Each repository's outcomes
 * are judged apart (its losses pause its own runs); the installation's pause needs the pattern
 * across `minRepositories` repositories, so one repository cannot pause its neighbours.
 */
export interface BreakerSettings {
  /** Re-run outcomes in the window before the share is judged; 0 turns the breaker off. */
  readonly minOutcomes: number;
  readonly windowMs: number;
  /** Share of those outcomes that were `lost_again`, 0..1, at or above which it trips. */
  readonly lostShare: number;
  readonly coolDownMs: number;
  /** Distinct repositories with a lost-again outcome before the installation's breaker opens; 1 when absent. */
  readonly minRepositories?: number;
}

/** The re-run outcomes of one installation (or one repository) in the breaker's window. */
export interface OutcomeCounts {
  readonly outcomes: number;
  readonly lostAgain: number;
  /** Distinct repositories among the lost-again outcomes. */
  readonly lostRepositories?: number;
}

/** Whose re-runs a breaker pauses: the whole installation's, or one repository's. */
export type BreakerScope = { readonly kind: 'installation' } | { readonly kind: 'repository'; readonly name: string };

/** A breaker as the decision sees it. */
export interface BreakerFacts extends OutcomeCounts {
  /** Epoch ms the pause ends; null while re-runs go. */
  readonly openUntil: number | null;
  /** The window the counts cover. */
  readonly windowMs: number;
  /** Whose breaker this is; the installation's when absent. */
  readonly scope?: BreakerScope;
}

/**
 * True when the outcomes say re-runs keep being lost: for a repository, its own outcomes; for
 * the installation, the same share spread over at least `minRepositories` repositories.
 */
export function breakerTrips(
  c: OutcomeCounts,
  s: BreakerSettings,
  scope: BreakerScope['kind'] = 'repository',
): boolean {
  const share = s.minOutcomes > 0 && c.outcomes >= s.minOutcomes && c.lostAgain >= s.lostShare * c.outcomes;
  if (!share || scope === 'repository') return share;
  return (c.lostRepositories ?? 1) >= (s.minRepositories ?? 1);
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
  const counts = `${b.lostAgain} of the last ${b.outcomes} re-run attempts within ${Math.round(b.windowMs / 60_000)} min`;
  if (b.scope?.kind === 'repository') {
    return (
      `automatic re-runs of the repository ${b.scope.name} are paused until ${until}: ${counts} ` +
      'of this repository were lost again (its runners or its workflow kill them?); other repositories go on'
    );
  }
  const spread = b.lostRepositories === undefined ? '' : `, in ${b.lostRepositories} repositories`;
  return `automatic re-runs of this installation are paused until ${until}: ${counts} were lost again${spread} (fleet or image broken?)`;
}
