import { describe, expect, it } from 'vitest';
import { FUNCTION_NAMES, type Setting } from '../../lib/config/setting.js';
import { MAX_ATTEMPTS_LIMIT, MAX_BUDGET_PER_HOUR, SETTINGS } from '../../lib/config/settings-table.js';

const entries = Object.entries(SETTINGS).map(([name, s]) => ({ name, s: s as Setting }));

/** The names of one kind an entry carries, with any repeated. */
function repeated(pick: (s: Setting) => string | undefined): string[] {
  const names = entries.map(({ s }) => pick(s)).filter((n): n is string => n !== undefined);
  return names.filter((n, i) => names.indexOf(n) !== i);
}

describe('the settings table', () => {
  it.each([
    ['environment variable', (s: Setting) => s.env],
    ['construct prop', (s: Setting) => s.prop],
    ['context key', (s: Setting) => s.context],
    ['repository key', (s: Setting) => s.repoKey],
  ])('names each %s once', (_kind, pick) => {
    expect(repeated(pick)).toEqual([]);
  });

  it.each(entries)(
    '$name: its default and its sample are values its own parser takes back unchanged',
    ({ name, s }) => {
      if (s.default !== undefined) expect(s.parse(s.default, name)).toEqual(s.default);
      if (s.sample !== undefined) {
        expect(s.parse(s.sample, name)).toEqual(s.sample);
        expect(s.sample).not.toEqual(s.default);
      }
    },
  );

  it.each(entries)(
    '$name: says what it does, and is read by deployed functions only through an environment variable',
    ({ s }) => {
      expect(s.doc.length).toBeGreaterThan(10);
      for (const fn of s.readBy) expect(FUNCTION_NAMES).toContain(fn);
      if (s.readBy.length > 0 || s.local) expect(s.env).toBeDefined();
      if (s.contextUnit !== undefined) expect(s.unit).toBeDefined();
    },
  );

  it('caps attempts at the 50 re-runs GitHub allows, and the budget at one window item', () => {
    expect(MAX_ATTEMPTS_LIMIT).toBe(50);
    expect(() => SETTINGS.maxAttempts.parse('51', 'MAX_ATTEMPTS')).toThrow(/GitHub allows 50 re-runs/);
    expect(SETTINGS.retryBudgetPerHour.parse(String(MAX_BUDGET_PER_HOUR), 'RETRY_BUDGET_PER_HOUR')).toBe(
      MAX_BUDGET_PER_HOUR,
    );
    expect(() => SETTINGS.retryBudgetPerHour.parse(String(MAX_BUDGET_PER_HOUR + 1), 'RETRY_BUDGET_PER_HOUR')).toThrow(
      /one window item holds the hour/,
    );
  });
});
