/**
 * Timing goals are judged on the median of several runs: one run on a shared machine can land
 * on a slow moment (or a fast one) and decide a goal by chance.
 */
export const MIN_RUNS_TO_JUDGE = 3;

export interface Repeated<T> {
  /** The run whose key is the median of all runs' keys. */
  readonly median: T;
  /** Every run's key, in the order the runs were made. */
  readonly keys: readonly number[];
}

/** Runs `measure` `n` times, one after another, and keeps the run with the median `key`. */
export async function medianRun<T>(n: number, measure: () => Promise<T>, key: (r: T) => number): Promise<Repeated<T>> {
  if (!Number.isInteger(n) || n < 1) throw new Error(`medianRun: expected a whole number of runs ≥ 1, got ${n}`);
  const runs: T[] = [];
  for (let i = 0; i < n; i++) runs.push(await measure());
  const keys = runs.map(key);
  const order = keys.map((k, i) => [k, i] as const).sort((a, b) => a[0] - b[0]);
  return { median: runs[order[Math.floor((n - 1) / 2)]![1]]!, keys };
}

/** "median of 3 (412, 386, 399)", or "1 run: not judged" below the judging minimum. */
export function describeRuns(keys: readonly number[], format: (k: number) => string): string {
  if (keys.length < MIN_RUNS_TO_JUDGE) return `${keys.length} run${keys.length === 1 ? '' : 's'}: not judged`;
  return `median of ${keys.length} (${keys.map(format).join(', ')})`;
}
