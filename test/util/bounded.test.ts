import { describe, expect, it } from 'vitest';
import { mapBounded } from '../../lib/util/bounded.js';

/** A call that resolves when the test says so, so concurrency is read off, never timed. */
function gate() {
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  let peak = 0;
  const fn = async (n: number): Promise<number> => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight--;
    return n * 10;
  };
  const releaseAll = async (): Promise<void> => {
    while (waiting.length > 0) {
      waiting.splice(0).forEach((r) => r());
      await new Promise((r) => setImmediate(r));
    }
  };
  return { fn, releaseAll, peak: () => peak, started: () => waiting.length };
}

describe('mapBounded', () => {
  it('keeps at most `limit` calls in flight and maps every item', async () => {
    const g = gate();
    const items = Array.from({ length: 20 }, (_, i) => i);
    const done = mapBounded(items, 3, g.fn);
    await new Promise((r) => setImmediate(r));
    expect(g.started()).toBe(3);
    await g.releaseAll();
    const { results, skipped } = await done;
    expect(g.peak()).toBe(3);
    expect([...results].sort((a, b) => a - b)).toEqual(items.map((i) => i * 10));
    expect(skipped).toEqual([]);
  });

  it('a limit above the item count starts one call per item', async () => {
    const g = gate();
    const done = mapBounded([1, 2], 8, g.fn);
    await new Promise((r) => setImmediate(r));
    expect(g.started()).toBe(2);
    await g.releaseAll();
    expect((await done).results.sort()).toEqual([10, 20]);
  });

  it('once stop() turns true, items not yet started are skipped and handed back in order', async () => {
    const seen: number[] = [];
    const { results, skipped } = await mapBounded(
      [1, 2, 3, 4, 5, 6],
      1,
      async (n) => (seen.push(n), n),
      () => seen.includes(2),
    );
    expect(results).toEqual([1, 2]);
    expect(skipped).toEqual([3, 4, 5, 6]);
  });

  it('no items: no call, nothing skipped', async () => {
    let calls = 0;
    expect(await mapBounded([], 4, async () => ++calls)).toEqual({ results: [], skipped: [] });
    expect(calls).toBe(0);
  });

  it('a failing call fails the whole map', async () => {
    await expect(
      mapBounded([1, 2, 3], 2, async (n) => {
        if (n === 2) throw new Error('item 2');
        return n;
      }),
    ).rejects.toThrow('item 2');
  });
});
