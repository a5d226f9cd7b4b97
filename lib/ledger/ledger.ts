import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { BreakerSettings } from '../decide/breaker.js';
import { type BranchRuns, TableBranchRuns } from './branch-runs.js';
import { type RetryBudget, TableRetryBudget } from './budget.js';
import { type DecisionLog, TableDecisionLog } from './decision-log.js';
import { type Deliveries, TableDeliveries } from './deliveries.js';
import { type EksListings, TableEksListings } from './eks-listings.js';
import { type RerunOutcomes, TableRerunOutcomes } from './outcomes.js';
import { type Pacing, type PaceLimits, TablePacing } from './pacing.js';
import { type Pauses, TablePauses } from './pauses.js';
import { type QueuedJobs, TableQueuedJobs } from './queued-jobs.js';
import { type ReconcileStore, TableReconcileStore } from './reconcile-store.js';
import { readReportFacts, type ReportSource } from './report-facts.js';
import { type Requeues, TableRequeues } from './requeues.js';
import { type RunAttempts, TableRunAttempts } from './run-attempts.js';
import { type RunnerJobs, TableRunnerJobs } from './runner-jobs.js';
import { type RunnerSignals, TableRunnerSignals } from './runner-signals.js';
import { type RunRecoveries, TableRunRecoveries } from './run-recoveries.js';
import { Table } from './table.js';

/**
 * Every store on the one table that the intake, the signal recorders, the worker, the
 * reconciler and the CLI use, each behind the interface declared beside it. A caller takes the
 * store it needs; a store that depends on a setting is made from it here.
 */
export interface Ledger {
  /** Deliveries the intake accepted. */
  readonly deliveries: Deliveries;
  /** Run attempts from claim to decision. */
  readonly attempts: RunAttempts;
  /** The merge-queue loop guard. */
  readonly requeues: Requeues;
  readonly decisions: DecisionLog;
  readonly report: ReportSource;
  /** The newest run of each workflow on each branch. */
  readonly branchRuns: BranchRuns;
  /** Jobs waiting for a runner. */
  readonly queuedJobs: QueuedJobs;
  /** Each EKS cluster's last pod listing by the EC2 signal. */
  readonly eksListings: EksListings;
  /** Early recovery's ends of run attempts and runs waiting for their healthy jobs. */
  readonly recoveries: RunRecoveries;
  /** The operator's pauses (`reprise pause`), read before every re-run. */
  readonly pauses: Pauses;
  /** The per-installation retry budget; 0 an hour turns it off. */
  /** The retry budget; `repositoryShare` (0..1) bounds one repository's part of the hour. */
  budget(perHour: number, repositoryShare?: number): RetryBudget;
  /** The shared pace of each installation's content-generating requests. */
  pacing(limits: PaceLimits): Required<Pacing>;
  /** Re-run outcomes and the breakers they drive. */
  outcomes(breaker: BreakerSettings): RerunOutcomes;
  /** Runner signals, kept `ttlSeconds`, under the runner keys the caller gives. */
  runnerSignals(ttlSeconds: number): RunnerSignals;
  /** Which jobs run on which runner, under the runner keys the caller gives. */
  runnerJobs(): RunnerJobs;
  /** The reconciler's store, on the reconciler's clock. */
  reconcile(now: () => number): ReconcileStore;
  /** The same stores over the same document client, on the clock `now`. */
  at(now: () => number): Ledger;
}

/**
 * Opens the ledger on `tableName`: one document client for every store (a process opens its
 * ledger once), every store on the clock `now`.
 */
export function openLedger(client: DynamoDBClient, tableName: string, now: () => number = Date.now): Ledger {
  return storesOn(new Table(client, tableName), now);
}

/** The stores the webhook intake writes and reads: nothing of the worker's, the reconciler's or the CLI's. */
export type IntakeLedger = Pick<
  Ledger,
  'deliveries' | 'queuedJobs' | 'branchRuns' | 'recoveries' | 'outcomes' | 'runnerJobs'
>;

/**
 * The intake's stores alone, on one document client: the internet-facing function bundles only the
 * store modules it uses (a bundle size goal, docs/performance.md).
 */
export function openIntakeLedger(
  client: DynamoDBClient,
  tableName: string,
  now: () => number = Date.now,
): IntakeLedger {
  const table = new Table(client, tableName);
  return {
    deliveries: new TableDeliveries(table, now),
    queuedJobs: new TableQueuedJobs(table, now),
    branchRuns: new TableBranchRuns(table, now),
    recoveries: new TableRunRecoveries(table, now),
    outcomes: (breaker) => new TableRerunOutcomes(table, breaker, now),
    runnerJobs: () => new TableRunnerJobs(table, now),
  };
}

function storesOn(table: Table, now: () => number): Ledger {
  return {
    deliveries: new TableDeliveries(table, now),
    attempts: new TableRunAttempts(table, now),
    requeues: new TableRequeues(table, now),
    decisions: new TableDecisionLog(table),
    report: { facts: (sinceMs) => readReportFacts(table, sinceMs) },
    branchRuns: new TableBranchRuns(table, now),
    queuedJobs: new TableQueuedJobs(table, now),
    eksListings: new TableEksListings(table, now),
    recoveries: new TableRunRecoveries(table, now),
    pauses: new TablePauses(table, now),
    budget: (perHour, repositoryShare) => new TableRetryBudget(table, perHour, now, repositoryShare),
    pacing: (limits) => new TablePacing(table, limits, now),
    outcomes: (breaker) => new TableRerunOutcomes(table, breaker, now),
    runnerSignals: (ttlSeconds) => new TableRunnerSignals(table, ttlSeconds, now),
    runnerJobs: () => new TableRunnerJobs(table, now),
    reconcile: (clock) => new TableReconcileStore(table, clock),
    at: (clock) => storesOn(table, clock),
  };
}
