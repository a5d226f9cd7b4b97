import type { RunnerSignal, SignalKind } from '../model.js';

/** Agents' records (`POST /signals`): their `terminated` is the agent's word, from outside the machine. */
const AGENT_SOURCE = 'agent';

/**
 * What warns of a loss from outside the workload before an instance stops: a spot interruption
 * warning, a rebalance recommendation, or a termination the fleet itself decided (an Auto Scaling
 * termination is recorded as `external`, as an agent's node termination is).
 */
const OUTSIDE_WARNINGS: ReadonlySet<SignalKind> = new Set(['spot-interruption', 'rebalance', 'external']);

/**
 * An instance state change (`shutting-down`, `terminated`), the one signal a job can cause itself
 * (`sudo shutdown`): every `terminated` but an agent's, whatever path recorded it.
 */
const isStateChange = (s: RunnerSignal): boolean => s.kind === 'terminated' && s.source !== AGENT_SOURCE;

const sameMachine = (a: RunnerSignal, b: RunnerSignal): boolean =>
  a.instanceId === undefined || b.instanceId === undefined || a.instanceId === b.instanceId;

const atOrBefore = (a: RunnerSignal, b: RunnerSignal): boolean => Date.parse(a.eventTime) <= Date.parse(b.eventTime);

/** True when something outside the workload warned of this state change at or before its time. */
const warned = (change: RunnerSignal, all: readonly RunnerSignal[]): boolean =>
  all.some((w) => OUTSIDE_WARNINGS.has(w.kind) && sameMachine(w, change) && atOrBefore(w, change));

/**
 * The signals that prove a runner's machine went away, of every signal known for one runner. The
 * one rule the classifier and every path that acts on a signal (early recovery among them) share,
 * so they never disagree on what is exact.
 *
 * Exact means from outside the workload: a spot interruption warning, a termination by Auto
 * Scaling or an agent's node termination (`external`), and an agent's `terminated`. An EC2 state
 * change is exact only when a spot interruption warning, a rebalance recommendation or a
 * termination by the fleet came at or before it: alone, it is what a job running `sudo shutdown`
 * on its own ephemeral runner produces, and counts with text strength (selfCausedStops). A
 * rebalance recommendation is a risk, never proof on its own.
 */
export function exactSignals(signals: readonly RunnerSignal[]): RunnerSignal[] {
  return signals.filter((s) => {
    if (s.kind === 'rebalance') return false;
    return !isStateChange(s) || warned(s, signals);
  });
}

/**
 * The EC2 state changes of these signals that nothing outside the workload warned of: evidence of a
 * loss with the strength of text (the text cap applies), never an exact signal.
 */
export function selfCausedStops(signals: readonly RunnerSignal[]): RunnerSignal[] {
  return signals.filter((s) => isStateChange(s) && !warned(s, signals));
}
