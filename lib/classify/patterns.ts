import { PatternError } from '../errors.js';

/**
 * Texts GitHub leaves behind when a runner disappears, and texts that must never count as
 * infrastructure. Anchored on the stable wording; runner names and timestamps vary.
 */
export interface NamedPattern {
  readonly name: string;
  readonly re: RegExp;
}

export const RUNNER_LOSS_PATTERNS: readonly NamedPattern[] = [
  // Named, unnamed and empty-named self-hosted runners share the tail of the sentence.
  { name: 'self-hosted-lost', re: /the self-hosted runner(?::[^\n]*?)? lost communication with the server/i },
  { name: 'hosted-lost', re: /the hosted runner(?::[^\n]*?)? lost communication with the server/i },
  { name: 'shutdown-signal', re: /the runner has received a shutdown signal/i },
];

/** Alone it proves nothing: it often follows the shutdown signal, so it sends the job to its log. */
export const CANCELLATION_ECHO = /^\s*the operation was canceled\.?\s*$/i;

/** Fail-fast siblings: cancelled because another job failed; neither blame nor evidence. */
export const FAIL_FAST = /the strategy configuration was canceled because/i;

export type VetoKind = 'person' | 'concurrency' | 'timeout';

export const VETO_PATTERNS: readonly { readonly kind: VetoKind; readonly re: RegExp }[] = [
  { kind: 'person', re: /the run was canceled by @/i },
  { kind: 'concurrency', re: /canceling since a higher priority waiting request for .* exists/i },
  { kind: 'timeout', re: /has exceeded the maximum execution time of/i },
];

export function matchLoss(text: string, extra: readonly RegExp[]): string | undefined {
  for (const p of RUNNER_LOSS_PATTERNS) if (p.re.test(text)) return p.name;
  for (const re of extra) if (re.test(text)) return `extra:${re.source}`;
  return undefined;
}

export function matchVeto(text: string): VetoKind | undefined {
  return VETO_PATTERNS.find((v) => v.re.test(text))?.kind;
}

/** One case-insensitive regex per line; `#` comments and blank lines skipped; an invalid one is an error. */
export function compileExtraPatterns(input: string | readonly string[] | undefined): RegExp[] {
  if (input === undefined) return [];
  const lines = typeof input === 'string' ? input.split(/\r?\n/) : input;
  const out: RegExp[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    try {
      out.push(new RegExp(line, 'i'));
    } catch (err) {
      throw new PatternError(i + 1, line, err);
    }
  });
  return out;
}
