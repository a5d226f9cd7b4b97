import type { DecisionKind } from '../model.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { FollowUp } from '../records.js';
import type { StoredAttempt } from './attributes.js';
import type { RunAttempts } from './run-attempts.js';
import type { ScanStart, Table } from './table.js';

/**
 * The reconciler's reads and writes. Every write is one conditional single-item write, so a
 * sweep repeated, or two sweeps at once, change nothing twice; each answers false when the
 * item was not in the state the sweep read.
 */
export interface ReconcileStore {
  cursor<T extends object>(name: string): Promise<T | undefined>;
  saveCursor(name: string, state: object): Promise<void>;
  /**
   * One page of run attempts that may need the reconciler: claims whose lease ended, and
   * re-runs by reprise decided before `completedBefore` and not yet followed up.
   */
  scanAttempts(
    start: Record<string, unknown> | undefined,
    limit: number,
    completedBefore: number,
  ): Promise<{ items: StoredAttempt[]; next: Record<string, unknown> | undefined }>;
  /** One page of every run attempt claimed or waiting, whatever its lease: what a restart looks at. */
  scanHeld(
    start: Record<string, unknown> | undefined,
    limit: number,
  ): Promise<{ items: StoredAttempt[]; next: Record<string, unknown> | undefined }>;
  /** Records the decision of a claim whose worker died after its re-run call went through. */
  recordOrphan(rec: StoredAttempt, decision: DecisionKind, reason: string, details: object): Promise<boolean>;
  /** Deletes the claim only if it is still the same one: same owner, same lease. */
  releaseOrphan(rec: StoredAttempt): Promise<boolean>;
  /** Puts a released claim back when its message could not be enqueued, so the next sweep tries again. */
  restoreClaim(rec: StoredAttempt): Promise<boolean>;
  /**
   * Marks that this run attempt's claim is being released. Succeeds for the first claim ever
   * released, and again for that same claim (a sweep that stopped half-way); fails for any other.
   */
  markReclaim(rec: StoredAttempt, repoId: number): Promise<boolean>;
  /** True the first time only: an orphan that is left alone is reported once. */
  markAbandoned(rec: StoredAttempt, repoId: number): Promise<boolean>;
  markFollowUp(rec: StoredAttempt, followUp: FollowUp, detail: string): Promise<boolean>;
  /** Claims the one redelivery of a delivery GUID; false when it was already asked for. */
  claimRedelivery(guid: string, deliveryId: number): Promise<boolean>;
  /** Gives the redelivery back after GitHub failed to take it, so a later sweep asks again. */
  releaseRedelivery(guid: string): Promise<void>;
  noteRedelivery(guid: string, outcome: string): Promise<boolean>;
}

/** The reconciler's store: its cursors and redeliveries, and its transitions of run attempts. */
export class TableReconcileStore implements ReconcileStore {
  constructor(
    private readonly table: Table,
    private readonly attempts: RunAttempts,
    private readonly now: () => number,
  ) {}

  async cursor<T extends object>(name: string): Promise<T | undefined> {
    const item = await this.table.get<{ state?: T }>(keys.reconcileCursor(name), true);
    return item?.state ?? undefined;
  }

  async saveCursor(name: string, state: object): Promise<void> {
    await this.table.put({
      ...keys.reconcileCursor(name),
      // Cursor state is plain JSON; unset fields are dropped rather than stored as undefined.
      state: JSON.parse(JSON.stringify(state)) as object,
      ttl: ttlFrom(this.now(), TTL.reconcileCursor),
    });
  }

  scanAttempts(
    start: ScanStart | undefined,
    limit: number,
    completedBefore: number,
  ): Promise<{ items: StoredAttempt[]; next: ScanStart | undefined }> {
    return this.attempts.scanOpen(start, limit, completedBefore);
  }

  scanHeld(
    start: ScanStart | undefined,
    limit: number,
  ): Promise<{ items: StoredAttempt[]; next: ScanStart | undefined }> {
    return this.attempts.scanHeld(start, limit);
  }

  recordOrphan(rec: StoredAttempt, decision: DecisionKind, reason: string, details: object): Promise<boolean> {
    return this.attempts.recordOrphan(rec, decision, reason, details);
  }

  releaseOrphan(rec: StoredAttempt): Promise<boolean> {
    return this.attempts.releaseOrphan(rec);
  }

  restoreClaim(rec: StoredAttempt): Promise<boolean> {
    return this.attempts.restore(rec);
  }

  markReclaim(rec: StoredAttempt, repoId: number): Promise<boolean> {
    return this.attempts.markReclaim(rec, repoId);
  }

  markAbandoned(rec: StoredAttempt, repoId: number): Promise<boolean> {
    return this.attempts.markAbandoned(rec, repoId);
  }

  markFollowUp(rec: StoredAttempt, followUp: FollowUp, detail: string): Promise<boolean> {
    return this.attempts.markFollowUp(rec, followUp, detail);
  }

  claimRedelivery(guid: string, deliveryId: number): Promise<boolean> {
    const now = this.now();
    return this.table.putIf(
      { ...keys.redelivery(guid), deliveryId, requestedAt: now, ttl: ttlFrom(now, TTL.redelivery) },
      { expression: 'attribute_not_exists(#pk)' },
    );
  }

  releaseRedelivery(guid: string): Promise<void> {
    return this.table.delete(keys.redelivery(guid));
  }

  noteRedelivery(guid: string, outcome: string): Promise<boolean> {
    return this.table.updateIf(
      keys.redelivery(guid),
      'SET #outcome = :o',
      { ':o': outcome },
      { expression: 'attribute_exists(#pk)' },
    );
  }
}
