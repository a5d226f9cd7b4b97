import type { Setting } from '../../../lib/config/setting.js';

/** An area's rows as the schema reads them, each with its name. */
export function rowsOf(area: Record<string, unknown>): { name: string; s: Setting }[] {
  return Object.entries(area).map(([name, s]) => ({ name, s: s as Setting }));
}

/** The setting's value read from its environment text, as a function reads it. */
export function fromText(s: Setting, text: string): unknown {
  return s.parse(text, s.env ?? s.prop ?? 'value');
}
