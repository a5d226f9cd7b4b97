import type { DecisionKind } from '../model.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { FollowUp, ReconcileStore, StoredAttempt } from '../ports.js';
import type { RunAttempts } from './run-attempts.js';
import type { ScanStart, Table } from './table.js';

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
