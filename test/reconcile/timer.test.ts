import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SweepCounts } from '../../lib/reconcile/reconciler.js';
import { startSweepTimer } from '../../lib/reconcile/timer.js';
import { MemoryLog } from '../support/memory-log.js';

const INTERVAL = 60_000;
const counts = { orphans: 1 } as unknown as SweepCounts;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A sweep that finishes only when the test says so. */
function heldSweeps() {
  const finish: (() => void)[] = [];
  let started = 0;
  const reconciler = {
    sweep: () => {
      started++;
      return new Promise<SweepCounts>((resolve) => finish.push(() => resolve(counts)));
    },
  };
  return { reconciler, finish, started: () => started };
}

describe('the local runtime’s sweep timer', () => {
  it('sweeps once every interval, the first after one interval, and hands each sweep’s counts on', async () => {
    const seen: SweepCounts[] = [];
    let sweeps = 0;
    const timer = startSweepTimer({ sweep: async () => (sweeps++, counts) }, INTERVAL, new MemoryLog(), (c) =>
      seen.push(c),
    );
    await vi.advanceTimersByTimeAsync(INTERVAL - 1);
    expect(sweeps).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(sweeps).toBe(1);
    await vi.advanceTimersByTimeAsync(2 * INTERVAL);
    expect(sweeps).toBe(3);
    expect(seen).toEqual([counts, counts, counts]);
    await timer.stop();
  });

  it('a sweep never overlaps the one before: the next interval starts when the sweep ends', async () => {
    const s = heldSweeps();
    const timer = startSweepTimer(s.reconciler, INTERVAL, new MemoryLog());
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(s.started()).toBe(1);
    await vi.advanceTimersByTimeAsync(5 * INTERVAL);
    expect(s.started()).toBe(1);
    s.finish[0]!();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(s.started()).toBe(2);
    s.finish[1]!();
    await timer.stop();
  });

  it('a sweep that throws is logged, and the timer goes on', async () => {
    const log = new MemoryLog();
    let sweeps = 0;
    const timer = startSweepTimer(
      {
        sweep: async () => {
          sweeps++;
          throw new Error('table gone');
        },
      },
      INTERVAL,
      log,
    );
    await vi.advanceTimersByTimeAsync(2 * INTERVAL);
    expect(sweeps).toBe(2);
    expect(log.named('reconcile sweep threw')).toEqual([
      expect.objectContaining({ level: 'error', error: 'table gone' }),
      expect.objectContaining({ level: 'error', error: 'table gone' }),
    ]);
    await timer.stop();
  });

  it('stop waits for the sweep under way, and no sweep starts after it', async () => {
    const s = heldSweeps();
    const timer = startSweepTimer(s.reconciler, INTERVAL, new MemoryLog());
    await vi.advanceTimersByTimeAsync(INTERVAL);
    let stopped = false;
    const stopping = timer.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    s.finish[0]!();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(s.started()).toBe(1);
  });

  it('the timer does not keep the process alive by itself: its timeout is unreferenced', async () => {
    vi.useRealTimers();
    const made: NodeJS.Timeout[] = [];
    const real = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
      const t = real(fn, ms);
      made.push(t);
      return t;
    }) as typeof setTimeout);
    const timer = startSweepTimer({ sweep: async () => counts }, INTERVAL, new MemoryLog());
    spy.mockRestore();
    expect(made).toHaveLength(1);
    expect(made[0]!.hasRef()).toBe(false);
    await timer.stop();
  });
});
