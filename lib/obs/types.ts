/** The narrow logging and metrics surfaces the domain needs; Powertools implements both. */
export interface Log {
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

/** Where counters go: Powertools when deployed, memory in the local runtime and the tests. */
export interface MetricSink {
  /** Adds `value` to a counter (or records a gauge) with optional single dimension. */
  count(name: string, value?: number, dimension?: { readonly name: string; readonly value: string }): void;
}
