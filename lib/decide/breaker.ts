import type { JobVerdict, RerunOutcome } from '../model.js';

/**
 * When automatic re-runs pause: evidence that re-runs keep dying. Each repository's outcomes
 * are judged apart (its losses pause its own runs); the installation's pause needs
 * `minRepositories` repositories that each cross the lost share on their own, so no repository
 * supplies another's verdict (see breakerTrips).
 */
export interface BreakerSettings {
  /** Re-run outcomes in the window before the share is judged; 0 turns the breaker off. */
  readonly minOutcomes: number;
  readonly windowMs: number;
  /** Share of those outcomes that were `lost_again`, 0..1, at or above which it trips. */
  readonly lostShare: number;
  readonly coolDownMs: number;
  /** Repositories that each cross the lost share before the installation's breaker opens; 1 when absent. */
  readonly minRepositories?: number;
}

/** One repository's re-run outcomes in the installation's window. */
export interface RepositoryCounts {
  readonly outcomes: number;
  readonly lostAgain: number;
}

/** The re-run outcomes of one installation (or one repository) in the breaker's window. */
export interface OutcomeCounts {
  readonly outcomes: number;
  readonly lostAgain: number;
  /** Distinct repositories among the lost-again outcomes. */
  readonly lostRepositories?: number;
  /** The installation's outcomes by repository; absent, all of them are one repository's. */
  readonly byRepository?: readonly RepositoryCounts[];
  /** Repositories that each crossed the lost share on their own (the installation's rule). */
  readonly crossingRepositories?: number;
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

const crosses = (r: RepositoryCounts, s: BreakerSettings): boolean =>
  r.lostAgain > 0 && r.lostAgain >= s.lostShare * r.outcomes;

/** The repositories of the installation's window that each cross the lost share on their own. */
export function crossingRepositories(c: OutcomeCounts, s: BreakerSettings): readonly RepositoryCounts[] {
  return (c.byRepository ?? [c]).filter((r) => crosses(r, s));
}

/**
 * True when the outcomes say re-runs keep being lost. For a repository: at least `minOutcomes`
 * of its own, the lost share of them lost again. For the installation: at least
 * `minRepositories` repositories each crossing the lost share on their own, and `minOutcomes`
 * outcomes among them, each repository counting at most its equal part
 * (`minOutcomes / minRepositories`, rounded up). So no repository's outcomes outweigh another's:
 * a repository whose runs kill their runners supplies neither the share nor the volume of the
 * installation's pause, and one with many recovered re-runs cannot dilute a fleet's breakage.
 */
export function breakerTrips(
  c: OutcomeCounts,
  s: BreakerSettings,
  scope: BreakerScope['kind'] = 'repository',
): boolean {
  if (s.minOutcomes <= 0) return false;
  if (scope === 'repository') return c.outcomes >= s.minOutcomes && crosses(c, s);
  const minRepositories = Math.max(1, s.minRepositories ?? 1);
  const part = Math.ceil(s.minOutcomes / minRepositories);
  const crossing = crossingRepositories(c, s);
  const volume = crossing.reduce((n, r) => n + Math.min(r.outcomes, part), 0);
  return crossing.length >= minRepositories && volume >= s.minOutcomes;
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
  const n = b.crossingRepositories ?? b.lostRepositories;
  const spread = n === undefined ? '' : `, in ${n} repositories each over the share`;
  return `automatic re-runs of this installation are paused until ${until}: ${counts} were lost again${spread} (fleet or image broken?)`;
}
