import { PatternError } from '../errors.js';
import { linearPattern, type TextPattern } from './linear-pattern.js';

/**
 * Limits on the patterns a repository (or the deployment) adds. Anyone who can merge into an
 * installed repository writes them, so they are held small enough that matching them against
 * the longest text reprise reads stays a matter of milliseconds.
 */
export const EXTRA_PATTERN_LIMITS = {
  /** Patterns in one `extra_patterns` setting. */
  count: 20,
  /** Characters of one pattern. */
  length: 200,
  /** Instructions of one compiled pattern: a counted repeat such as `\w{900}` is refused. */
  programSize: 400,
} as const;

/** RE2's messages name the construct; a backreference or lookaround gets a plainer word. */
function refusal(source: string, err: unknown): string {
  const said = (err as Error).message;
  const unsupported = /\\[1-9]|\\k<|\(\?<?[=!]/.test(source)
    ? ' (backreferences and lookaround are not supported: patterns run on a linear-time engine)'
    : '';
  return `invalid regular expression /${source}/: ${said}${unsupported}`;
}

/**
 * One case-insensitive pattern per line; `#` comments and blank lines skipped. A pattern that
 * is invalid, refused by the linear-time engine, or past the limits is a PatternError naming
 * its line: the caller reports it as a configuration error.
 */
export function compileExtraPatterns(input: string | readonly string[] | undefined): TextPattern[] {
  if (input === undefined) return [];
  const lines = typeof input === 'string' ? input.split(/\r?\n/) : input;
  const out: TextPattern[] = [];
  const limits = EXTRA_PATTERN_LIMITS;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (out.length >= limits.count) {
      throw new PatternError(i + 1, line, `more than ${limits.count} patterns; keep the ones that match lost runners`);
    }
    if (line.length > limits.length) {
      throw new PatternError(i + 1, line, `pattern is ${line.length} characters, more than ${limits.length}`);
    }
    let re: TextPattern;
    try {
      re = linearPattern(line);
    } catch (err) {
      throw new PatternError(i + 1, line, refusal(line, err));
    }
    if (re.size > limits.programSize) {
      throw new PatternError(
        i + 1,
        line,
        `pattern /${line}/ compiles to ${re.size} instructions, more than ${limits.programSize} (a large counted repeat?)`,
      );
    }
    out.push(re);
  });
  return out;
}
