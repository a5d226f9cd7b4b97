import type { RunAttempts } from '../ledger/run-attempts.js';
import type { RunMessage } from '../model.js';
import type { Log } from '../obs/types.js';
import type { RunQueue } from '../queue/run-queue.js';
import { replayGuard, type ReplayVerdict } from '../replay/replay-guard.js';
import { messageGroupId } from '../webhook/run-message.js';

/** What a replay is assembled from: the ledger's guard, the queue it sends to, where it logs. */
export interface ReplayParts {
  readonly attempts: Pick<RunAttempts, 'get' | 'forceRelease'>;
  /** The worker's queue: a replay is sent as the intake sends a delivery. */
  readonly queue: RunQueue;
  /** Where each replay is logged; the CLI, which prints the verdict, has none. */
  readonly log?: Log;
  readonly now?: () => number;
}

/** Sends a run attempt for a new decision, or says why not (`reprise replay`). */
export type Replay = (message: RunMessage, force: boolean) => Promise<ReplayVerdict>;

/**
 * A replay as the operator asks for it: the ledger's guard first (a decided attempt is reported,
 * with `force` one that did not re-run is given back), then the message in its run's group under
 * its delivery id, as the intake would send it.
 */
export function composeReplay(parts: ReplayParts): Replay {
  return async (message, force) => {
    const verdict = await replayGuard(parts.attempts, message, force, (parts.now ?? Date.now)());
    const where = { run_id: message.runId, run_attempt: message.runAttempt, delivery: message.deliveryId };
    if (verdict.kind !== 'enqueue') {
      parts.log?.info('replay not enqueued', { ...where, outcome: verdict.kind });
      return verdict;
    }
    await parts.queue.send(message, messageGroupId(message), message.deliveryId);
    parts.log?.info('replay enqueued', { ...where, ...(verdict.released && { released: verdict.released }) });
    return verdict;
  };
}
