import type { DecisionKind } from '../model.js';
import type { FollowUp } from '../records.js';
import { heldBy, RERUN_IN, storedKey, writeDecision } from './attempt-items.js';
import { STATE, type StoredAttempt } from './attributes.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { ScanStart, Table } from './table.js';

/** How often an attempt whose re-run calls failed (5xx, timeout) may be released and decided again. */
export const CALL_FAILED_RELEASES = 3;

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
  markFollowUp(rec: StoredAttempt, followUp: FollowUp, detail: string): Promise<boolean>;
  /** Claims the one redelivery of a delivery GUID; false when it was already asked for. */
  claimRedelivery(guid: string, deliveryId: number): Promise<boolean>;
  /** Gives the redelivery back after GitHub failed to take it, so a later sweep asks again. */
  releaseRedelivery(guid: string): Promise<void>;
  noteRedelivery(guid: string, outcome: string): Promise<boolean>;
}

/**
 * The reconciler's store: its cursors and redeliveries, and its transitions of run attempts
 * (an orphaned claim recorded or released, a re-run followed up), each conditional on the very
 * item the sweep read.
 */
export class TableReconcileStore implements ReconcileStore {
  constructor(
    private readonly table: Table,
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
    return this.table.scanPage<StoredAttempt>(
      {
        expression:
          'begins_with(#pk, :run) AND begins_with(#sk, :attempt) AND (' +
          '(#state IN (:claimed, :waiting) AND #leaseUntil < :now) OR ' +
          `(#state = :decided AND ${RERUN_IN.expression} AND attribute_not_exists(#followUp) ` +
          'AND #decidedAt < :before))',
        values: {
          ':run': keys.runAttemptPrefixes.pk,
          ':attempt': keys.runAttemptPrefixes.sk,
          ':claimed': STATE.claimed,
          ':waiting': STATE.waiting,
          ':decided': STATE.decided,
          ...RERUN_IN.values,
          ':now': this.now(),
          ':before': completedBefore,
        },
      },
      start,
      limit,
    );
  }

  scanHeld(
    start: ScanStart | undefined,
    limit: number,
  ): Promise<{ items: StoredAttempt[]; next: ScanStart | undefined }> {
    return this.table.scanPage<StoredAttempt>(
      {
        expression: 'begins_with(#pk, :run) AND begins_with(#sk, :attempt) AND #state IN (:claimed, :waiting)',
        values: {
          ':run': keys.runAttemptPrefixes.pk,
          ':attempt': keys.runAttemptPrefixes.sk,
          ':claimed': STATE.claimed,
          ':waiting': STATE.waiting,
        },
      },
      start,
      limit,
    );
  }

  /** Only while it is the same claim (owner and lease). */
  recordOrphan(rec: StoredAttempt, decision: DecisionKind, reason: string, details: object): Promise<boolean> {
    const claim = heldBy(rec.owner, rec.leaseUntil, rec.state);
    return writeDecision(this.table, this.now(), storedKey(rec), claim, { decision, reason, details });
  }

  /** Deletes an orphaned claim (or wait) only if it is still the same one: same state, owner and lease. */
  releaseOrphan(rec: StoredAttempt): Promise<boolean> {
    return this.table.deleteIf(storedKey(rec), heldBy(rec.owner, rec.leaseUntil, rec.state));
  }

  restoreClaim(rec: StoredAttempt): Promise<boolean> {
    return this.table.putIf(
      { ...rec, ttl: rec.ttl ?? ttlFrom(this.now(), TTL.runAttempt) },
      { expression: 'attribute_not_exists(#pk)' },
    );
  }

  /**
   * A later claim of the attempt is refused too, unless its re-run call failed and fewer than
   * CALL_FAILED_RELEASES were released.
   */
  markReclaim(rec: StoredAttempt, repoId: number): Promise<boolean> {
    const claim = `${rec.owner}@${rec.leaseUntil}`;
    const now = this.now();
    // A claim whose worker saw its re-run call fail (callError) did not die: its attempt may be
    // released a few times, each after the run was seen not to have moved.
    const allowed = rec.callError === undefined ? 1 : CALL_FAILED_RELEASES;
    return this.table.updateIf(
      keys.reclaim(repoId, rec.runId, rec.runAttempt),
      'SET #claim = :claim, #releasedAt = :now, #ttl = :ttl ADD #releases :one',
      { ':claim': claim, ':now': now, ':ttl': ttlFrom(now, TTL.runAttempt), ':one': 1 },
      {
        expression: 'attribute_not_exists(#pk) OR #claim = :claim OR #releases < :allowed',
        values: { ':claim': claim, ':allowed': allowed },
      },
    );
  }

  markFollowUp(rec: StoredAttempt, followUp: FollowUp, detail: string): Promise<boolean> {
    return this.table.updateIf(
      storedKey(rec),
      'SET #followUp = :f, #followUpDetail = :x, #followUpAt = :t',
      { ':f': followUp, ':x': detail, ':t': this.now() },
      { expression: '#state = :decided AND attribute_not_exists(#followUp)', values: { ':decided': STATE.decided } },
    );
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
