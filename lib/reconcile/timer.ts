import type { Log } from '../obs/types.js';
import type { Reconciler, SweepCounts } from './reconciler.js';

/** The local runtime's sweep schedule, stopped with the runtime. */
export interface SweepTimer {
  /** Stops the timer and waits for a sweep under way. */
  stop(): Promise<void>;
}

/**
 * Runs a sweep every `intervalMs` in the local runtime, the way a schedule invokes the
 * reconciler function. A sweep never overlaps the one before; the timer never keeps the
 * process alive by itself.
 */
export function startSweepTimer(
  reconciler: Pick<Reconciler, 'sweep'>,
  intervalMs: number,
  log: Log,
  onSweep?: (counts: SweepCounts) => void,
): SweepTimer {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = reconciler
        .sweep()
        .then((counts) => onSweep?.(counts))
        .catch((err: unknown) => log.error('reconcile sweep threw', { error: (err as Error).message }))
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
