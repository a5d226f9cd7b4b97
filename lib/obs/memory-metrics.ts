import type { MetricSink } from './types.js';

/** A sink that drops every metric: for callers that count nothing. */
export const noMetrics: MetricSink = { count: () => undefined };

/** Collects metrics in memory: the local runtime's sink, which the tests read. */
export class MemoryMetrics implements MetricSink {
  readonly totals = new Map<string, number>();
  count(name: string, value = 1, dimension?: { name: string; value: string }): void {
    const key = dimension ? `${name}{${dimension.name}=${dimension.value}}` : name;
    this.totals.set(key, (this.totals.get(key) ?? 0) + value);
  }
  get(key: string): number {
    return this.totals.get(key) ?? 0;
  }
}
