import type { DecisionKind, RunMessage } from '../model.js';
import type { AttemptRecord, ClaimResult } from '../records.js';
import { STATE } from './attributes.js';
import { heldBy, keyOf, RERUN_IN, writeDecision } from './attempt-items.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';

/** Reads one run attempt, consistently. */
export interface AttemptReader {
  get(repoId: number, runId: number, attempt: number): Promise<AttemptRecord | undefined>;
}

/**
 * A run attempt from claim to decision, as the worker (and an operator's replay) moves it. The
 * claim is the one conditional put that makes a worker the attempt's owner; every later write
 * is conditional on that claim, and answers false when it was lost.
 */
export interface RunAttempts extends AttemptReader {
  /** Claims the attempt for `owner`, or takes over a waiting attempt whose slot came; else what holds it. */
  claim(msg: RunMessage, owner: string, leaseMs: number): Promise<ClaimResult>;
  /** Turns the claim into a wait for its re-run slot, keeping `kept`; false when the claim was lost. */
  wait(
    msg: RunMessage,
    owner: string,
    slotAt: number,
    waitingSince: number,
    leaseMs: number,
    kept?: string,
    /** `slotAt` is when to ask the pace again, not a reserved slot. */
    unreserved?: boolean,
  ): Promise<boolean>;
  /** Records the decision; only the claim's owner may. False when the claim was lost. */
  finalise(
    msg: RunMessage,
    owner: string,
    decision: DecisionKind,
    reason: string,
    details?: Record<string, unknown>,
  ): Promise<boolean>;
  /** Notes that the claim's re-run call failed with its outcome unknown; false when the claim was lost. */
  noteCallFailed(msg: RunMessage, owner: string, error: string): Promise<boolean>;
  /** Gives a claim back (a transient fault before any re-run call) so a redelivery decides again. */
  release(msg: RunMessage, owner: string): Promise<boolean>;
  /**
   * Deletes exactly the record that was read (same state, same claim time), and never one
   * that records a re-run. False when the record changed meanwhile.
   */
  forceRelease(msg: RunMessage, seen: AttemptRecord): Promise<boolean>;
}

/**
 * The run attempt item's transitions from claim to decision. A run attempt is claimed before
 * any re-run call, so concurrent or repeated deliveries yield one; each later write is
 * conditional on the claim it expects. The reconciler's transitions are in reconcile-store.ts.
 */
export class TableRunAttempts implements RunAttempts {
  constructor(
    private readonly table: Table,
    private readonly now: () => number,
  ) {}

  async claim(msg: RunMessage, owner: string, leaseMs: number): Promise<ClaimResult> {
    const now = this.now();
    const record: AttemptRecord = {
      state: STATE.claimed,
      owner,
      claimedAt: now,
      leaseUntil: now + leaseMs,
      repository: `${msg.repository.owner}/${msg.repository.name}`,
      runId: msg.runId,
      runAttempt: msg.runAttempt,
      installationId: msg.installationId,
      message: JSON.stringify(msg),
    };
    const item = { ...keyOf(msg), ...record, ttl: ttlFrom(now, TTL.runAttempt) };
    if (await this.table.putIf(item, { expression: 'attribute_not_exists(#pk)' })) return { claimed: true };
    const existing = await this.get(msg.repository.id, msg.runId, msg.runAttempt);
    if (existing?.state !== STATE.waiting || (existing.slotAt ?? 0) > now) return { claimed: false, existing };
    // Its slot came: whichever worker receives the attempt's message now takes it over, slot and all.
    // `:owner` is the condition's (the waiting owner); the worker taking the attempt over is `:taker`.
    const taken = await this.table.updateIf(
      keyOf(msg),
      'SET #state = :claimed, #owner = :taker, #claimedAt = :now, #leaseUntil = :until',
      { ':claimed': STATE.claimed, ':taker': owner, ':now': now, ':until': now + leaseMs },
      heldBy(existing.owner, existing.leaseUntil, STATE.waiting),
    );
    if (!taken) return { claimed: false, existing: await this.get(msg.repository.id, msg.runId, msg.runAttempt) };
    return {
      claimed: true,
      ...(existing.slotAt !== undefined && { slotAt: existing.slotAt }),
      ...(existing.unreserved === true && { unreserved: true }),
      ...(existing.waitingSince !== undefined && { waitingSince: existing.waitingSince }),
      ...(existing.kept !== undefined && { kept: existing.kept }),
    };
  }

  /**
   * Turns this owner's claim into a wait for the reserved slot: the lease runs to the slot and
   * a lease beyond, so a sweep takes the attempt back only if its message never came back.
   * `kept` holds the facts gathered before the wait, so the next pass does not gather them again.
   * The waiting message becomes the attempt's own, so the claim knows it from a copy.
   */
  wait(
    msg: RunMessage,
    owner: string,
    slotAt: number,
    waitingSince: number,
    leaseMs: number,
    kept?: string,
    unreserved?: boolean,
  ): Promise<boolean> {
    return this.table.updateIf(
      keyOf(msg),
      // The message that waits becomes the attempt's: a copy that comes back before the slot is told apart by it.
      `SET #state = :waiting, #slotAt = :slot, #waitingSince = :since, #leaseUntil = :until, #message = :msg${kept === undefined ? '' : ', #kept = :kept'}${unreserved ? ', #unreserved = :unreserved' : ''}` +
        (unreserved ? '' : ' REMOVE #unreserved'),
      {
        ...(unreserved && { ':unreserved': true }),
        ':waiting': STATE.waiting,
        ':msg': JSON.stringify(msg),
        ':slot': slotAt,
        ':since': waitingSince,
        ':until': slotAt + leaseMs,
        ...(kept !== undefined && { ':kept': kept }),
      },
      heldBy(owner),
    );
  }

  get(repoId: number, runId: number, attempt: number): Promise<AttemptRecord | undefined> {
    return this.table.get<AttemptRecord>(keys.runAttempt(repoId, runId, attempt), true);
  }

  finalise(
    msg: RunMessage,
    owner: string,
    decision: DecisionKind,
    reason: string,
    details: Record<string, unknown> = {},
  ): Promise<boolean> {
    return writeDecision(this.table, this.now(), keyOf(msg), heldBy(owner), { decision, reason, details });
  }

  /**
   * Notes on this owner's claim that its re-run call failed without an answer (a 5xx, a
   * timeout): whether GitHub acted is unknown, so the claim stays for the reconciler, and a
   * redelivery meanwhile says so instead of naming another worker.
   */
  noteCallFailed(msg: RunMessage, owner: string, error: string): Promise<boolean> {
    return this.table.updateIf(keyOf(msg), 'SET #callError = :e', { ':e': error }, heldBy(owner));
  }

  release(msg: RunMessage, owner: string): Promise<boolean> {
    return this.table.deleteIf(keyOf(msg), heldBy(owner));
  }

  forceRelease(msg: RunMessage, seen: AttemptRecord): Promise<boolean> {
    return this.table.deleteIf(keyOf(msg), {
      expression: `#state = :state AND #claimedAt = :claimedAt AND (attribute_not_exists(#decision) OR NOT (${RERUN_IN.expression}))`,
      values: { ':state': seen.state, ':claimedAt': seen.claimedAt, ...RERUN_IN.values },
    });
  }
}
