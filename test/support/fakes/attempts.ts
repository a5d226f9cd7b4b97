import type { RunAttempts } from '../../../lib/ledger/run-attempts.js';
import { type DecisionKind, isRerunDecision, type RunMessage } from '../../../lib/model.js';
import type { AttemptRecord, ClaimResult } from '../../../lib/records.js';

const keyOf = (m: Pick<RunMessage, 'repository' | 'runId' | 'runAttempt'>): string =>
  `${m.repository.id}#${m.runId}#${m.runAttempt}`;

/**
 * Run attempts in memory, as strict as the table on the rules a decision leans on: one owner per
 * claim (a second claim is refused and shown what holds it), a waiting attempt taken over only
 * once its turn came, and every later write (wait, note, finalise, release) refused unless this
 * owner still holds the claim. Every write is counted, refused or not.
 */
export class MemoryAttempts implements RunAttempts {
  readonly records = new Map<string, AttemptRecord>();
  /** Every write asked for, in order, with whether it was made. */
  readonly writes: { op: string; owner: string; made: boolean }[] = [];

  constructor(private readonly now: () => number) {}

  async claim(msg: RunMessage, owner: string, leaseMs: number): Promise<ClaimResult> {
    const now = this.now();
    const key = keyOf(msg);
    const existing = this.records.get(key);
    if (!existing) {
      this.records.set(key, {
        state: 'claimed',
        owner,
        claimedAt: now,
        leaseUntil: now + leaseMs,
        repository: `${msg.repository.owner}/${msg.repository.name}`,
        runId: msg.runId,
        runAttempt: msg.runAttempt,
        installationId: msg.installationId,
        message: JSON.stringify(msg),
      });
      return this.wrote('claim', owner, { claimed: true });
    }
    if (existing.state !== 'waiting' || (existing.slotAt ?? 0) > now) {
      return this.wrote('claim', owner, { claimed: false, existing: { ...existing } });
    }
    // Its turn came: the claim takes the waiting attempt over, slot and kept facts with it.
    const { slotAt, waitingSince, kept } = existing;
    this.records.set(key, { ...existing, state: 'claimed', owner, claimedAt: now, leaseUntil: now + leaseMs });
    return this.wrote('claim', owner, {
      claimed: true,
      ...(slotAt !== undefined && { slotAt }),
      ...(waitingSince !== undefined && { waitingSince }),
      ...(kept !== undefined && { kept }),
    });
  }

  async wait(
    msg: RunMessage,
    owner: string,
    slotAt: number,
    waitingSince: number,
    leaseMs: number,
    kept?: string,
  ): Promise<boolean> {
    return this.ifHeld('wait', msg, owner, (rec) => ({
      ...rec,
      state: 'waiting',
      slotAt,
      waitingSince,
      leaseUntil: slotAt + leaseMs,
      message: JSON.stringify(msg),
      ...(kept !== undefined && { kept }),
    }));
  }

  async get(repoId: number, runId: number, attempt: number): Promise<AttemptRecord | undefined> {
    const rec = this.records.get(`${repoId}#${runId}#${attempt}`);
    return rec && { ...rec };
  }

  async finalise(
    msg: RunMessage,
    owner: string,
    decision: DecisionKind,
    reason: string,
    details: Record<string, unknown> = {},
  ): Promise<boolean> {
    return this.ifHeld('finalise', msg, owner, ({ kept: _spent, ...rec }) => ({
      ...rec,
      state: 'decided',
      decision,
      reason,
      decidedAt: this.now(),
      details,
    }));
  }

  async noteCallFailed(msg: RunMessage, owner: string, error: string): Promise<boolean> {
    return this.ifHeld('noteCallFailed', msg, owner, (rec) => ({ ...rec, callError: error }));
  }

  async release(msg: RunMessage, owner: string): Promise<boolean> {
    return this.ifHeld('release', msg, owner, () => undefined);
  }

  async forceRelease(msg: RunMessage, seen: AttemptRecord): Promise<boolean> {
    const rec = this.records.get(keyOf(msg));
    const made =
      rec !== undefined &&
      rec.state === seen.state &&
      rec.claimedAt === seen.claimedAt &&
      !isRerunDecision(rec.decision);
    if (made) this.records.delete(keyOf(msg));
    return this.wrote('forceRelease', rec?.owner ?? '', made);
  }

  /** The attempt's record, or a failed assertion. */
  of(msg: RunMessage): AttemptRecord {
    const rec = this.records.get(keyOf(msg));
    if (!rec) throw new Error(`no record of attempt ${keyOf(msg)}`);
    return rec;
  }

  /** How many writes of `op` were made (`made`) or asked for. */
  count(op: string, made?: boolean): number {
    return this.writes.filter((w) => w.op === op && (made === undefined || w.made === made)).length;
  }

  /** A write conditional on this owner's claim (state `claimed`), as every later write of the table is. */
  private ifHeld(
    op: string,
    msg: RunMessage,
    owner: string,
    change: (rec: AttemptRecord) => AttemptRecord | undefined,
  ): boolean {
    const key = keyOf(msg);
    const rec = this.records.get(key);
    if (!rec || rec.state !== 'claimed' || rec.owner !== owner) return this.wrote(op, owner, false);
    const next = change(rec);
    if (next) this.records.set(key, next);
    else this.records.delete(key);
    return this.wrote(op, owner, true);
  }

  private wrote<T>(op: string, owner: string, result: T): T {
    const made = typeof result === 'boolean' ? result : (result as { claimed?: boolean }).claimed === true;
    this.writes.push({ op, owner, made });
    return result;
  }
}
