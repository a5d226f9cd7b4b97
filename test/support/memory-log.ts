import type { Log } from '../../lib/obs/types.js';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  [key: string]: unknown;
}

/** Keeps every structured line so tests can assert what an operator would read. */
export class MemoryLog implements Log {
  readonly lines: LogLine[] = [];
  debug(message: string, extra: Record<string, unknown> = {}): void {
    this.lines.push({ ...extra, level: 'debug', message });
  }
  info(message: string, extra: Record<string, unknown> = {}): void {
    this.lines.push({ ...extra, level: 'info', message });
  }
  warn(message: string, extra: Record<string, unknown> = {}): void {
    this.lines.push({ ...extra, level: 'warn', message });
  }
  error(message: string, extra: Record<string, unknown> = {}): void {
    this.lines.push({ ...extra, level: 'error', message });
  }
  named(message: string): LogLine[] {
    return this.lines.filter((l) => l.message === message);
  }
  clear(): void {
    this.lines.length = 0;
  }
}
