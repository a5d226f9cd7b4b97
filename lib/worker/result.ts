import type { DecisionKind, JobVerdict } from '../model.js';

/** A decision as the handler reports it and the decision log line counts it. */
export interface RunOutcome {
  readonly decision: DecisionKind;
  readonly reason: string;
  readonly requests: number;
  readonly verdicts: readonly JobVerdict[];
}

/** The attempt was decided, and the decision recorded. */
export interface Decided {
  readonly kind: 'decided';
  readonly outcome: RunOutcome;
}

/**
 * A wait: the message goes back to the queue hidden until `untilMs` and is decided then. No
 * fault. `metric` names what to count.
 */
export interface Deferred {
  readonly kind: 'deferred';
  readonly untilMs: number;
  readonly reason: string;
  readonly metric: string;
}

/** A copy of an attempt another message holds or has decided: nothing recorded, nothing called. */
export interface Duplicate {
  readonly kind: 'duplicate';
  readonly reason: string;
}

/** What became of one message. Faults are thrown, never returned. */
export type RunResult = Decided | Deferred | Duplicate;

/** A duplicate as the handler reports it. */
export const duplicateOutcome = (d: Duplicate): RunOutcome => ({
  decision: 'duplicate',
  reason: d.reason,
  requests: 0,
  verdicts: [],
});
