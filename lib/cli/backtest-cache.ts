import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { BacktestCache } from '../backtest/backtest.js';
import type { AttemptRecord } from '../backtest/history.js';
import type { Judgement } from '../backtest/judge.js';
import { CliError } from './io.js';

const VERSION = 1;

interface CacheFile {
  readonly version: number;
  readonly attempts: Record<string, AttemptRecord>;
  readonly judgements: Record<string, Judgement>;
}

/**
 * `--cache FILE`: what a backtest read of each attempt, kept in one JSON file. Written as it
 * goes (at most once a second, and on `flush`), through a temporary file and a rename, so an
 * interrupted backtest leaves a whole file to resume from.
 */
export class FileCache implements BacktestCache {
  private readonly data: CacheFile;
  private lastWrite = 0;
  private dirty = false;

  constructor(
    private readonly path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.data = existsSync(path) ? FileCache.read(path) : { version: VERSION, attempts: {}, judgements: {} };
  }

  private static read(path: string): CacheFile {
    let parsed: Partial<CacheFile>;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<CacheFile>;
    } catch (err) {
      throw new CliError(`--cache ${path}: not a backtest cache (${(err as Error).message})`);
    }
    if (parsed.version !== VERSION || typeof parsed.attempts !== 'object' || typeof parsed.judgements !== 'object') {
      throw new CliError(`--cache ${path}: not a backtest cache of this version; name another file`);
    }
    return parsed as CacheFile;
  }

  /** Attempts and judgements the file holds. */
  get size(): { attempts: number; judgements: number } {
    return { attempts: Object.keys(this.data.attempts).length, judgements: Object.keys(this.data.judgements).length };
  }

  attempt(key: string): AttemptRecord | undefined {
    return this.data.attempts[key];
  }

  judgement(key: string): Judgement | undefined {
    return this.data.judgements[key];
  }

  async keep(key: string, v: { attempt?: AttemptRecord; judgement?: Judgement }): Promise<void> {
    if (v.attempt) this.data.attempts[key] = v.attempt;
    if (v.judgement) this.data.judgements[key] = v.judgement;
    this.dirty = true;
    if (this.now() - this.lastWrite >= 1000) this.flush();
  }

  flush(): void {
    if (!this.dirty) return;
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data));
    renameSync(tmp, this.path);
    this.dirty = false;
    this.lastWrite = this.now();
  }
}
