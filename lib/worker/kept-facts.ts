import type { JobVerdict, RepoConfig } from '../model.js';

/**
 * What a run that earned a re-run keeps with its waiting attempt, so its turn costs one
 * re-check of the run and the call, not the whole decision again. The patterns are left out:
 * they served the verdicts, which are kept.
 */
export interface KeptFacts {
  readonly config: RepoConfig;
  /** The configuration error as the reason says it, and as the log line's `config_error`. */
  readonly configError?: string;
  readonly configErrorRaw?: string;
  readonly verdicts: readonly JobVerdict[];
  readonly unexamined: number;
  /** GitHub requests the decision made before it waited. */
  readonly requests: number;
}

const VERSION = 1;

export function keepFacts(k: KeptFacts): string {
  const { extraPatterns: _spent, ...config } = k.config;
  return JSON.stringify({ v: VERSION, ...k, config });
}

/** The kept facts, or undefined when they cannot be read (another version): the turn then decides afresh. */
export function readKeptFacts(text: string | undefined): KeptFacts | undefined {
  if (text === undefined) return undefined;
  try {
    const k = JSON.parse(text) as Partial<KeptFacts> & { v?: unknown };
    if (k.v !== VERSION || typeof k.config !== 'object' || k.config === null || !Array.isArray(k.verdicts)) {
      return undefined;
    }
    return {
      config: { ...k.config, extraPatterns: [] },
      ...(typeof k.configError === 'string' && { configError: k.configError }),
      ...(typeof k.configErrorRaw === 'string' && { configErrorRaw: k.configErrorRaw }),
      verdicts: k.verdicts,
      unexamined: typeof k.unexamined === 'number' ? k.unexamined : 0,
      requests: typeof k.requests === 'number' ? k.requests : 0,
    };
  } catch {
    return undefined;
  }
}
