import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DecisionLog, TableDecisionLog } from './decision-log.js';
import { type Deliveries, TableDeliveries } from './deliveries.js';
import { type ReconcileStore, TableReconcileStore } from './reconcile-store.js';
import { readReportFacts, type ReportSource } from './report-facts.js';
import { type Requeues, TableRequeues } from './requeues.js';
import { type RunAttempts, TableRunAttempts } from './run-attempts.js';
import { Table } from './table.js';

/**
 * The stores on the one table that the intake, the worker, the reconciler and the CLI share,
 * each behind the interface declared beside it. A caller takes the store it needs.
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
  /** The reconciler's store, on the reconciler's clock. */
  reconcile(now: () => number): ReconcileStore;
}

/** Opens the ledger's stores on `tableName`, every one on the clock `now`. */
export function openLedger(client: DynamoDBClient, tableName: string, now: () => number = Date.now): Ledger {
  const table = new Table(client, tableName);
  return {
    deliveries: new TableDeliveries(table, now),
    attempts: new TableRunAttempts(table, now),
    requeues: new TableRequeues(table, now),
    decisions: new TableDecisionLog(table),
    report: { facts: (sinceMs) => readReportFacts(table, sinceMs) },
    reconcile: (clock) => new TableReconcileStore(table, clock),
  };
}
