/** Plain-text tables and summary statistics for the benchmark's stdout. */

export type Cell = string | number;

/** A titled, column-aligned table; numbers are right-aligned. */
export function table(title: string, head: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = [head, ...rows].map((r) => r.map((c) => String(c)));
  const widths = head.map((_, i) => Math.max(...text.map((r) => (r[i] ?? '').length)));
  const numeric = head.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [
    `\n## ${title}\n`,
    line(text[0]!),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...text.slice(1).map(line),
  ].join('\n');
}

export interface Summary {
  readonly n: number;
  readonly min: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile of an ascending list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error('percentile of an empty list');
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

const ascending = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

export function summarize(values: readonly number[]): Summary {
  const s = ascending(values);
  return {
    n: s.length,
    min: s[0] ?? NaN,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    max: s.at(-1) ?? NaN,
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

export const median = (values: readonly number[]): number => percentile(ascending(values), 50);

/** Milliseconds with precision where it matters: 0.42, 4.2, 420. */
export function ms(v: number): string {
  if (!Number.isFinite(v)) return '-';
  return v < 1 ? v.toFixed(3) : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0);
}

export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;

export const usd = (v: number): string =>
  v === 0 ? '$0' : v < 0.01 ? `$${v.toPrecision(2)}` : `$${v.toFixed(v < 10 ? 3 : 2)}`;

/** A Promise that resolves at an absolute `performance.now()` time. */
export const until = (at: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));
