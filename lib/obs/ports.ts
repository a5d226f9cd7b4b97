/** The narrow logging and metrics surfaces the domain needs; Powertools implements both. */
export interface Log {
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

export interface MetricSink {
  /** Adds `value` to a counter (or records a gauge) with optional single dimension. */
  count(name: string, value?: number, dimension?: { readonly name: string; readonly value: string }): void;
}

export const noMetrics: MetricSink = { count: () => undefined };

/** Collects metrics in memory: the local runtime's `/metrics` view and the tests read it. */
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
