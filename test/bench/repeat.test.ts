import { describe, expect, it } from 'vitest';
import type { BurstResult } from './burst.js';
import { evaluateGoals } from './goals.js';
import { describeRuns, medianRun } from './repeat.js';

describe('bench goals are judged on the median of at least three runs', () => {
  it.each([
    [[5, 1, 3], 3],
    [[9, 7, 8, 1, 2], 7],
    [[4], 4],
    [[2, 10], 2],
  ])('runs measuring %j keep the run measuring %i', async (values, expected) => {
    let i = 0;
    const r = await medianRun(
      values.length,
      async () => ({ v: values[i++]! }),
      (x) => x.v,
    );
    expect(r.median.v).toBe(expected);
    expect(r.keys).toEqual(values);
  });

  it('fewer than three runs are not judged', () => {
    expect(describeRuns([120], String)).toBe('1 run: not judged');
    expect(describeRuns([1, 2, 3], (k) => `${k} ms`)).toBe('median of 3 (1 ms, 2 ms, 3 ms)');
  });

  it('refuses a run count that is not a whole number ≥ 1', async () => {
    await expect(medianRun(0, async () => 1, Number)).rejects.toThrow(/whole number of runs/);
  });
});

describe('the goals table', () => {
  const burst = (peakRssMb: number) =>
    ({
      runs: 1000,
      drainMs: 100_000,
      runsRerunTwice: 0,
      runsNotRerun: 0,
      peakRssMb: 200,
      startTree: { peakMb: peakRssMb, processes: 3, runs: 300, requestsPerRun: 3.7 },
    }) as unknown as BurstResult;

  it('judges the npm start burst on at most 4 GitHub requests a run, on one run (a count, not a timing)', () => {
    const judged = evaluateGoals({ burst: burst(200), repeats: { 3: [200] } });
    expect(judged.find((g) => g.goal.includes('≤ 4 GitHub requests a run'))).toMatchObject({
      met: true,
      measured: '3.70 per run (300-run burst)',
    });
  });

  it('judges a timing goal on the median of three runs, and not on one', () => {
    const judged = evaluateGoals({ burst: burst(300), repeats: { 3: [250, 300, 310] } });
    expect(judged.find((g) => g.goal.includes('process tree peak memory'))).toMatchObject({
      met: false,
      measured: expect.stringMatching(/median of 3 \(250 MB, 300 MB, 310 MB\)/),
    });
    const once = evaluateGoals({ burst: burst(100), repeats: { 3: [100] } });
    expect(once.find((g) => g.goal.includes('process tree peak memory'))).toMatchObject({ met: null });
    // Counting goals do not depend on timing: one run decides them.
    expect(once.find((g) => g.goal.includes('zero duplicates'))?.met).toBe(true);
  });
});
