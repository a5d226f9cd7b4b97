import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DecisionKind, RunMessage } from '../model.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { AttemptRecord, ClaimResult, DecisionFilter, ReportFacts } from '../records.js';
import { type ReconcileStore, TableReconcileStore } from './reconcile-store.js';
import { readReportFacts } from './report-facts.js';
import { type RequeueLog, TableRequeues } from './requeues.js';
import { RunAttempts } from './run-attempts.js';
import { Table } from './table.js';

/** Reads one run attempt, consistently. */
export interface AttemptReader {
  get(repoId: number, runId: number, attempt: number): Promise<AttemptRecord | undefined>;
}

/** What an operator's replay needs: read the attempt, and give back one that did not re-run. */
export interface ReplayLedger extends AttemptReader {
  /**
   * Deletes exactly the record that was read (same state, same claim time), and never one
   * that records a re-run. False when the record changed meanwhile.
   */
  forceRelease(msg: RunMessage, seen: AttemptRecord): Promise<boolean>;
}

/** Recorded decisions, for listings. */
export interface DecisionLog {
  listDecisions(filter?: DecisionFilter): Promise<AttemptRecord[]>;
}

/** What the reconciler needs of the ledger: attempts, deliveries the intake accepted, its own store. */
export interface ReconcileLedger extends AttemptReader {
  isSeen(guid: string): Promise<boolean>;
  /** The reconciler's store on the same table, on the reconciler's clock. */
  reconcileStore(now: () => number): ReconcileStore;
}

export interface ReportLedger {
  /** Decisions, re-run outcomes and runner signals from `sinceMs` on. */
  reportFacts(sinceMs: number): Promise<ReportFacts>;
}

/**
 * The dedupe and attempt ledger: deliveries the intake accepted, and run attempts from
 * claim to decision. The worker, the intake, the reconciler and the CLI all come through here.
 */
export class Ledger implements ReconcileLedger, ReplayLedger, DecisionLog, ReportLedger {
  private readonly table: Table;
  private readonly attempts: RunAttempts;
  /** The merge-queue loop guard, on the same table. */
  readonly requeues: RequeueLog;

  constructor(
    client: DynamoDBClient,
    tableName: string,
    private readonly now: () => number = Date.now,
  ) {
    this.table = new Table(client, tableName);
    this.attempts = new RunAttempts(this.table, now);
    this.requeues = new TableRequeues(this.table, now);
  }

  async isSeen(guid: string): Promise<boolean> {
    return (await this.table.get(keys.delivery(guid), false)) !== undefined;
  }

  async markSeen(guid: string, event: string): Promise<void> {
    const now = this.now();
    await this.table.put({ ...keys.delivery(guid), event, seenAt: now, ttl: ttlFrom(now, TTL.delivery) });
  }

  claim(msg: RunMessage, owner: string, leaseMs: number): Promise<ClaimResult> {
    return this.attempts.claim(msg, owner, leaseMs);
  }

  get(repoId: number, runId: number, attempt: number): Promise<AttemptRecord | undefined> {
    return this.attempts.get(repoId, runId, attempt);
  }

  /** Records the decision; only the claim's owner may. Returns false when the claim was lost. */
  finalise(
    msg: RunMessage,
    owner: string,
    decision: DecisionKind,
    reason: string,
    details: Record<string, unknown> = {},
  ): Promise<boolean> {
    return this.attempts.finalise(msg, owner, decision, reason, details);
  }

  /** Turns the claim into a wait for its re-run slot; false when the claim was lost. */
  wait(
    msg: RunMessage,
    owner: string,
    slotAt: number,
    waitingSince: number,
    leaseMs: number,
    kept?: string,
  ): Promise<boolean> {
    return this.attempts.wait(msg, owner, slotAt, waitingSince, leaseMs, kept);
  }

  /** Notes that the claim's re-run call failed with its outcome unknown; false when the claim was lost. */
  noteCallFailed(msg: RunMessage, owner: string, error: string): Promise<boolean> {
    return this.attempts.noteCallFailed(msg, owner, error);
  }

  /** Gives a claim back (a transient fault before any re-run call) so a redelivery decides again. */
  release(msg: RunMessage, owner: string): Promise<boolean> {
    return this.attempts.release(msg, owner);
  }

  forceRelease(msg: RunMessage, seen: AttemptRecord): Promise<boolean> {
    return this.attempts.forceRelease(msg, seen);
  }

  listDecisions(filter: DecisionFilter = {}): Promise<AttemptRecord[]> {
    return this.attempts.listDecisions(filter);
  }

  /** Decisions, re-run outcomes and runner signals since a time: what `reprise report` counts. */
  reportFacts(sinceMs: number): Promise<ReportFacts> {
    return readReportFacts(this.table, sinceMs);
  }

  reconcileStore(now: () => number): ReconcileStore {
    return new TableReconcileStore(this.table, new RunAttempts(this.table, now), now);
  }
}
