/** The table's interfaces live with every other shared interface. */
export type {
  AttemptRecord,
  StoredAttempt,
  ClaimResult,
  FollowUp,
  DecisionFilter,
  AttemptReader,
  ReplayLedger,
  DecisionLog,
  RetryBudget,
  RerunPacing,
  ReconcileStore,
  ReconcileLedger,
  AttemptRef,
  OutcomeRecord,
  RerunOutcomeLog,
  RerunBreaker,
} from '../ports.js';
