import { type DecisionKind, RERUN_DECISIONS, type RunMessage } from '../model.js';
import { type StoredAttempt, STATE } from './attributes.js';
import { type Key, keys, TTL, ttlFrom } from './keys.js';
import type { AttemptRecord, AttemptState, ClaimResult, DecisionFilter, FollowUp } from '../records.js';
import type { Expression, ScanStart, Table } from './table.js';
import { clip, TEXT_CAPS } from '../util/clip.js';

const keyOf = (msg: RunMessage): Key => keys.runAttempt(msg.repository.id, msg.runId, msg.runAttempt);
const storedKey = (rec: StoredAttempt): Key => ({ pk: rec.pk, sk: rec.sk });

/** `decision IN (:rerun0, :rerun1)`: the re-run decisions, as an expression. */
const RERUN_IN = {
  expression: `#decision IN (${RERUN_DECISIONS.map((_, i) => `:rerun${i}`).join(', ')})`,
  values: Object.fromEntries(RERUN_DECISIONS.map((d, i) => [`:rerun${i}`, d])),
};

/** How often an attempt whose re-run calls failed (5xx, timeout) may be released and decided again. */
export const CALL_FAILED_RELEASES = 3;

/** Jobs a decision item lists at most: with names capped, the item stays far below DynamoDB's 400 KB. */
export const STORED_JOBS_LIMIT = 300;

/** A decision's details as stored: at most STORED_JOBS_LIMIT jobs (the rest counted), each name capped. */
function boundedDetails(details: object): object {
  const d = details as { jobs?: unknown; workflow?: unknown };
  const out: Record<string, unknown> = { ...details };
  if (typeof d.workflow === 'string') out.workflow = clip(d.workflow, TEXT_CAPS.name);
  if (Array.isArray(d.jobs)) {
    out.jobs = d.jobs
      .slice(0, STORED_JOBS_LIMIT)
      .map((j: { name?: unknown }) => (typeof j?.name === 'string' ? { ...j, name: clip(j.name, TEXT_CAPS.name) } : j));
    if (d.jobs.length > STORED_JOBS_LIMIT) out.jobsOmitted = d.jobs.length - STORED_JOBS_LIMIT;
  }
  return out;
}

/** Still claimed (or waiting) by this owner; with `leaseUntil`, still the very claim a sweep read. */
function heldBy(owner: string, leaseUntil?: number, state: AttemptState = STATE.claimed): Expression {
  return {
    expression: `#state = :held AND #owner = :owner${leaseUntil === undefined ? '' : ' AND #leaseUntil = :lease'}`,
    values: { ':held': state, ':owner': owner, ...(leaseUntil !== undefined && { ':lease': leaseUntil }) },
  };
}

/**
 * Every transition of a run attempt item (`RUN#…`/`ATTEMPT#…`) and of the reclaim marker
 * beside it. A run attempt is claimed before any re-run call, so concurrent or repeated
 * deliveries yield one; each later write is conditional on the claim it expects.
 */
export class RunAttempts {
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
    // Its turn came: whichever worker receives the attempt's message now takes it over, slot and all.
    const taken = await this.table.updateIf(
      keyOf(msg),
      'SET #state = :claimed, #owner = :owner, #claimedAt = :now, #leaseUntil = :until',
      { ':claimed': STATE.claimed, ':owner': owner, ':now': now, ':until': now + leaseMs },
      heldBy(existing.owner, existing.leaseUntil, STATE.waiting),
    );
    if (!taken) return { claimed: false, existing: await this.get(msg.repository.id, msg.runId, msg.runAttempt) };
    return {
      claimed: true,
      ...(existing.slotAt !== undefined && { slotAt: existing.slotAt }),
      ...(existing.waitingSince !== undefined && { waitingSince: existing.waitingSince }),
      ...(existing.kept !== undefined && { kept: existing.kept }),
    };
  }

  /**
   * Turns this owner's claim into a wait for the reserved slot: the lease runs to the slot and
   * a lease beyond, so a sweep takes the attempt back only if its message never came back.
   * `kept` holds the facts gathered before the wait, so the turn does not gather them again.
   * The waiting message becomes the attempt's own, so the claim knows it from a copy.
   */
  wait(
    msg: RunMessage,
    owner: string,
    slotAt: number,
    waitingSince: number,
    leaseMs: number,
    kept?: string,
  ): Promise<boolean> {
    return this.table.updateIf(
      keyOf(msg),
      // The message that waits becomes the attempt's: a copy that comes back before the turn is told apart by it.
      `SET #state = :waiting, #slotAt = :slot, #waitingSince = :since, #leaseUntil = :until, #message = :msg${kept === undefined ? '' : ', #kept = :kept'}`,
      {
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

  /** Records the decision; only the claim's owner may. False when the claim was lost. */
  finalise(
    msg: RunMessage,
    owner: string,
    decision: DecisionKind,
    reason: string,
    details: Record<string, unknown>,
  ): Promise<boolean> {
    return this.decide(keyOf(msg), heldBy(owner), decision, reason, details);
  }

  /** Records the decision of a claim whose worker died: only while it is the same claim (owner and lease). */
  recordOrphan(rec: StoredAttempt, decision: DecisionKind, reason: string, details: object): Promise<boolean> {
    return this.decide(storedKey(rec), heldBy(rec.owner, rec.leaseUntil, rec.state), decision, reason, details);
  }

  /**
   * Notes on this owner's claim that its re-run call failed without an answer (a 5xx, a
   * timeout): whether GitHub acted is unknown, so the claim stays for the reconciler, and a
   * redelivery meanwhile says so instead of naming another worker.
   */
  noteCallFailed(msg: RunMessage, owner: string, error: string): Promise<boolean> {
    return this.table.updateIf(keyOf(msg), 'SET #callError = :e', { ':e': error }, heldBy(owner));
  }

  /** Gives a claim back (a transient fault before any re-run call) so a redelivery decides again. */
  release(msg: RunMessage, owner: string): Promise<boolean> {
    return this.table.deleteIf(keyOf(msg), heldBy(owner));
  }

  /** Deletes an orphaned claim (or wait) only if it is still the same one: same state, owner and lease. */
  releaseOrphan(rec: StoredAttempt): Promise<boolean> {
    return this.table.deleteIf(storedKey(rec), heldBy(rec.owner, rec.leaseUntil, rec.state));
  }

  /** Deletes exactly the record that was read, and never one that records a re-run. */
  forceRelease(msg: RunMessage, seen: AttemptRecord): Promise<boolean> {
    return this.table.deleteIf(keyOf(msg), {
      expression: `#state = :state AND #claimedAt = :claimedAt AND (attribute_not_exists(#decision) OR NOT (${RERUN_IN.expression}))`,
      values: { ':state': seen.state, ':claimedAt': seen.claimedAt, ...RERUN_IN.values },
    });
  }

  /** Puts a released claim back as it was read. */
  restore(rec: StoredAttempt): Promise<boolean> {
    return this.table.putIf(
      { ...rec, ttl: rec.ttl ?? ttlFrom(this.now(), TTL.runAttempt) },
      {
        expression: 'attribute_not_exists(#pk)',
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

  /**
   * Marks that this run attempt's claim is being released. Succeeds for the first claim ever
   * released, and again for that same claim (a sweep that stopped half-way); fails for any other,
   * unless the claim's re-run call failed and fewer than CALL_FAILED_RELEASES were released.
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

  /** True the first time only: an orphan that is left alone is reported once. */
  markAbandoned(rec: StoredAttempt, repoId: number): Promise<boolean> {
    return this.table.updateIf(
      keys.reclaim(repoId, rec.runId, rec.runAttempt),
      'SET #abandonedAt = :t',
      { ':t': this.now() },
      { expression: 'attribute_exists(#pk) AND attribute_not_exists(#abandonedAt)' },
    );
  }

  /**
   * One page of run attempts that may need the reconciler: claims whose lease ended, and
   * re-runs by reprise not yet followed up. `limit` bounds the items read, not the matches.
   */
  async scanOpen(
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

  /** One page of every run attempt claimed or waiting, whatever its lease. */
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

  /** Recorded decisions, newest first. A scan: the table is small and this serves operators, not the hot path. */
  async listDecisions(filter: DecisionFilter): Promise<AttemptRecord[]> {
    const out: AttemptRecord[] = [];
    let start: ScanStart | undefined;
    do {
      const page = await this.table.scanPage<AttemptRecord>(
        {
          expression: 'begins_with(#pk, :run) AND #state = :decided',
          values: { ':run': keys.runAttemptPrefixes.pk, ':decided': STATE.decided },
        },
        start,
      );
      out.push(...page.items);
      start = page.next;
    } while (start);
    return out
      .filter((r) => !filter.repository || r.repository === filter.repository)
      .filter((r) => filter.sinceMs === undefined || (r.decidedAt ?? 0) >= filter.sinceMs)
      .sort((a, b) => (b.decidedAt ?? 0) - (a.decidedAt ?? 0))
      .slice(0, filter.limit ?? 50);
  }

  /** The one write of a decision, for the claim's owner and for the reconciler alike. */
  private decide(
    key: Key,
    claim: Expression,
    decision: DecisionKind,
    reason: string,
    details: object,
  ): Promise<boolean> {
    return this.table.updateIf(
      key,
      // The facts kept for a wait are spent once the attempt is decided.
      'SET #state = :decided, #decision = :d, #reason = :r, #decidedAt = :t, #details = :x REMOVE #kept',
      {
        ':decided': STATE.decided,
        ':d': decision,
        ':r': clip(reason, TEXT_CAPS.reason),
        ':t': this.now(),
        ':x': boundedDetails(details),
      },
      claim,
    );
  }
}
