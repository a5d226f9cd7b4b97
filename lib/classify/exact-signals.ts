import type { RunnerSignal, SignalKind } from '../model.js';

/** A rebalance recommendation is a risk, not an interruption: never enough alone. */
const EXACT_KINDS: ReadonlySet<SignalKind> = new Set(['spot-interruption', 'terminated', 'external']);

/**
 * The signals that prove a runner's machine went away, of those found for it. The one rule the
 * classifier and every path that acts on a signal share, so they never disagree on what is exact.
 */
export function exactSignals(signals: readonly RunnerSignal[]): RunnerSignal[] {
  return signals.filter((s) => EXACT_KINDS.has(s.kind));
}
