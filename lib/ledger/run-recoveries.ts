import type { RecoveryMessage } from '../model.js';
import { keys, TTL, ttlFrom } from './keys.js';
import type { Table } from './table.js';

/** A run attempt as early recovery names it. */
export interface RecoveryRef {
  readonly repoId: number;
  readonly runId: number;
  readonly runAttempt: number;
}

/** reprise's early end of a run attempt, as recorded. */
export interface RecoveryEnd {
  /** `sending` until GitHub answered; `accepted` (202) or `refused` (409, or faults past the retries). */
  readonly status: 'sending' | 'accepted' | 'refused';
  /** When the end was claimed (ISO). */
  readonly at: string;
  /** When the loss happened: the earliest exact signal's event time (ISO). */
  readonly lostAt: string;
  readonly runnerName: string;
  /** force-cancel calls sent so far. */
  readonly calls: number;
  readonly reason: string;
}

/**
 * Early recovery's records: the end of a run attempt (one `force-cancel` per attempt, claimed
 * before it is sent) and a run waiting for its healthy jobs to end. The completion's decision
 * reads the end, so a cancel reprise made is never taken for a person's.
 */
export interface RunRecoveries {
  /** Claims the end of `ref`; false when it was claimed before (by any worker, at any time). */
  claimEnd(ref: RecoveryRef, end: Omit<RecoveryEnd, 'status' | 'calls'>): Promise<boolean>;
  /** Gives the end back unsent (a rate limit turned the call away): a later request may claim it. */
  releaseEnd(ref: RecoveryRef): Promise<void>;
  /** Records how GitHub answered the end and how many calls it took. */
  settleEnd(ref: RecoveryRef, status: RecoveryEnd['status'], calls: number): Promise<void>;
  /** The end of `ref`, if reprise claimed one. */
  endOf(ref: RecoveryRef): Promise<RecoveryEnd | undefined>;
  /** Keeps the request of a run waiting for its healthy jobs, for their `workflow_job` ends to send again. */
  awaitSiblings(request: RecoveryMessage): Promise<void>;
  /** The waiting request of a run, if any. */
  waiting(repoId: number, runId: number): Promise<RecoveryMessage | undefined>;
  /** Forgets the wait: the run was ended, or is left alone. */
  stopWaiting(repoId: number, runId: number): Promise<void>;
}

/** Early ends and runs waiting for their healthy jobs, on the table. */
export class TableRunRecoveries implements RunRecoveries {
  constructor(
    private readonly table: Table,
    private readonly now: () => number = Date.now,
  ) {}

  claimEnd(ref: RecoveryRef, end: Omit<RecoveryEnd, 'status' | 'calls'>): Promise<boolean> {
    return this.table.putIf(
      {
        ...keys.recoveryEnd(ref.repoId, ref.runId, ref.runAttempt),
        ...end,
        status: 'sending',
        calls: 0,
        ttl: ttlFrom(this.now(), TTL.recovery),
      },
      { expression: 'attribute_not_exists(#pk)' },
    );
  }

  async settleEnd(ref: RecoveryRef, status: RecoveryEnd['status'], calls: number): Promise<void> {
    await this.table.updateIf(
      keys.recoveryEnd(ref.repoId, ref.runId, ref.runAttempt),
      'SET #status = :status, #calls = :calls',
      { ':status': status, ':calls': calls },
      { expression: 'attribute_exists(#pk)' },
    );
  }

  async releaseEnd(ref: RecoveryRef): Promise<void> {
    await this.table.deleteIf(keys.recoveryEnd(ref.repoId, ref.runId, ref.runAttempt), {
      expression: '#status = :sending AND #calls = :none',
      values: { ':sending': 'sending', ':none': 0 },
    });
  }

  async endOf(ref: RecoveryRef): Promise<RecoveryEnd | undefined> {
    const item = await this.table.get<RecoveryEnd>(keys.recoveryEnd(ref.repoId, ref.runId, ref.runAttempt), true);
    if (!item) return undefined;
    const { status, at, lostAt, runnerName, calls, reason } = item;
    return { status, at, lostAt, runnerName, calls, reason };
  }

  async awaitSiblings(request: RecoveryMessage): Promise<void> {
    await this.table.put({
      ...keys.recoveryWait(request.repository.id, request.runId),
      message: JSON.stringify(request),
      ttl: ttlFrom(this.now(), TTL.recoveryWait),
    });
  }

  async waiting(repoId: number, runId: number): Promise<RecoveryMessage | undefined> {
    const item = await this.table.get<{ message: string }>(keys.recoveryWait(repoId, runId), true);
    return item ? (JSON.parse(item.message) as RecoveryMessage) : undefined;
  }

  async stopWaiting(repoId: number, runId: number): Promise<void> {
    await this.table.delete(keys.recoveryWait(repoId, runId));
  }
}
