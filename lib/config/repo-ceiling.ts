import type { RepoConfig } from '../model.js';

/** What an operator lets a repository file raise (REPO_MAX_ATTEMPTS_CEILING, REPO_EXTRA_PATTERNS). */
export interface RepoCeiling {
  /** The most `max_attempts` (and so `text_only_max_attempts`) a file may set. */
  readonly maxAttempts: number;
  /** Whether a file's `extra_patterns` count as evidence; when false only the deployment's do. */
  readonly extraPatterns: boolean;
}

/** No cap: what a file says stands. */
export const NO_CEILING: RepoCeiling = { maxAttempts: 50, extraPatterns: true };

/** A repository's config after the deployment's ceiling, with what the ceiling lowered. */
export interface Clamped {
  readonly config: RepoConfig;
  /** Each value the ceiling lowered, in words the decision's reason carries; empty when none. */
  readonly clamped: readonly string[];
}

/**
 * A repository's settings held under the operator's ceiling. Only what the file raised is
 * lowered: the deployment's own defaults stand as the operator set them.
 */
export function clampToCeiling(config: RepoConfig, defaults: RepoConfig, ceiling: RepoCeiling): Clamped {
  const clamped: string[] = [];
  let out = config;
  const cap = (field: 'maxAttempts' | 'textOnlyMaxAttempts', key: string): void => {
    const value = out[field];
    if (value > ceiling.maxAttempts && value !== defaults[field]) {
      clamped.push(`${key} ${value} clamped to ${ceiling.maxAttempts} (REPO_MAX_ATTEMPTS_CEILING)`);
      out = { ...out, [field]: ceiling.maxAttempts };
    }
  };
  cap('maxAttempts', 'max_attempts');
  cap('textOnlyMaxAttempts', 'text_only_max_attempts');
  if (!ceiling.extraPatterns && out.extraPatterns !== defaults.extraPatterns && out.extraPatterns.length > 0) {
    clamped.push(`extra_patterns not used (REPO_EXTRA_PATTERNS=false)`);
    out = { ...out, extraPatterns: defaults.extraPatterns };
  }
  if (out.textOnlyMaxAttempts > out.maxAttempts) out = { ...out, textOnlyMaxAttempts: out.maxAttempts };
  return { config: out, clamped };
}
