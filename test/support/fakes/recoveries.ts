import type { RecoveryEnd, RecoveryRef, RunRecoveries } from '../../../lib/ledger/run-recoveries.js';
import type { RecoveryMessage } from '../../../lib/model.js';

const refKey = (r: RecoveryRef): string => `${r.repoId}#${r.runId}#${r.runAttempt}`;

/** Early recovery's records in memory, with the table store's once-only claim of an end. */
export class MemoryRecoveries implements RunRecoveries {
  readonly ends = new Map<string, RecoveryEnd>();
  readonly waits = new Map<string, RecoveryMessage>();

  claimEnd(ref: RecoveryRef, end: Omit<RecoveryEnd, 'status' | 'calls'>): Promise<boolean> {
    if (this.ends.has(refKey(ref))) return Promise.resolve(false);
    this.ends.set(refKey(ref), { ...end, status: 'sending', calls: 0 });
    return Promise.resolve(true);
  }

  settleEnd(ref: RecoveryRef, status: RecoveryEnd['status'], calls: number): Promise<void> {
    const end = this.ends.get(refKey(ref));
    if (end) this.ends.set(refKey(ref), { ...end, status, calls });
    return Promise.resolve();
  }

  releaseEnd(ref: RecoveryRef): Promise<void> {
    this.ends.delete(refKey(ref));
    return Promise.resolve();
  }

  endOf(ref: RecoveryRef): Promise<RecoveryEnd | undefined> {
    return Promise.resolve(this.ends.get(refKey(ref)));
  }

  awaitSiblings(request: RecoveryMessage): Promise<void> {
    this.waits.set(`${request.repository.id}#${request.runId}`, request);
    return Promise.resolve();
  }

  waiting(repoId: number, runId: number): Promise<RecoveryMessage | undefined> {
    return Promise.resolve(this.waits.get(`${repoId}#${runId}`));
  }

  stopWaiting(repoId: number, runId: number): Promise<void> {
    this.waits.delete(`${repoId}#${runId}`);
    return Promise.resolve();
  }
}
