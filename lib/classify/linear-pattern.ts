import { RE2JS } from 're2js';
import type { TextPattern } from '../model.js';

export type { TextPattern };

/**
 * Compiles `source`, case-insensitively, for RE2's automaton: its time grows linearly with the
 * text and the pattern, whatever either holds. Texts and patterns here come from people reprise
 * does not trust, so no backtracking engine ever sees them. Throws what RE2 throws for syntax it
 * refuses (backreferences, lookaround).
 */
export function linearPattern(source: string): TextPattern {
  const re = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  return { source, size: programSize(re), test: (text) => re.test(text) };
}

/** RE2JS keeps its compiled program unexported; the pattern's length stands in if that changes. */
function programSize(re: RE2JS): number {
  const prog = (re.re2() as unknown as { prog?: { inst?: readonly unknown[] } }).prog;
  return prog?.inst?.length ?? re.pattern().length;
}
