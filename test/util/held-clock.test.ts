/**
 * The clock the worker's scan budget reads (lib/util/held-clock.ts): it counts the time the
 * process itself spends, so a budget read from it cuts a run short for its own work, never for
 * a neighbour's load. Each verdict here is made by an event (CPU burnt, a wait ended), not by
 * racing the wall.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { heldClock } from '../../lib/util/held-clock.js';

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

describe('heldClock', () => {
  it('counts work on the event loop in full: after 50 ms of CPU and of wall time, it has moved at least 50 ms', () => {
    const clock = heldClock();
    const t0 = clock();
    const wall = performance.now();
    const cpu = process.cpuUsage();
    while (performance.now() - wall < 50 || cpuMs(cpu) < 50);
    expect(clock() - t0).toBeGreaterThanOrEqual(50);
  });

  it('while the process waits, it moves no more than the CPU the process used meanwhile, and never more than the wall', async () => {
    const clock = heldClock();
    const t0 = clock();
    const wall = performance.now();
    const cpu = process.cpuUsage();
    await sleep(300);
    const moved = clock() - t0;
    expect(moved).toBeLessThanOrEqual(performance.now() - wall);
    // A 300 ms wait: whatever the process did meanwhile (a timer, the collector) is all it counts.
    expect(moved).toBeLessThanOrEqual(cpuMs(cpu) + 1);
  });

  it('only ever moves forward', () => {
    const clock = heldClock();
    let last = clock();
    for (let i = 0; i < 1000; i++) {
      const t = clock();
      expect(t).toBeGreaterThanOrEqual(last);
      last = t;
    }
  });
});
