import { describe, expect, expectTypeOf, it } from 'vitest';
import { int, text } from '../../lib/config/parsers.js';
import { def, FUNCTION_NAMES, type FunctionName } from '../../lib/config/setting.js';
import { SETTINGS } from '../../lib/config/settings-table.js';

describe('FUNCTION_NAMES', () => {
  it('names each deployed function once', () => {
    expect([...FUNCTION_NAMES].sort()).toEqual(['ec2Signal', 'intake', 'reconciler', 'signalIntake', 'worker']);
    expect(new Set(FUNCTION_NAMES).size).toBe(FUNCTION_NAMES.length);
  });

  it("holds every function a setting's readBy names", () => {
    const named = new Set(Object.values(SETTINGS).flatMap((s) => s.readBy as readonly FunctionName[]));
    for (const fn of named) expect(FUNCTION_NAMES).toContain(fn);
  });
});

describe('def', () => {
  it('returns the entry as declared', () => {
    const entry = { env: 'X_COUNT', default: 2, parse: int(0), readBy: [], local: true, doc: 'a count' } as const;
    expect(def(entry)).toBe(entry);
  });

  it("keeps the literal default, repository key, prop and unit in the entry's type", () => {
    const entry = def({
      prop: 'waitFor',
      repoKey: 'wait_for',
      unit: 'minutes',
      default: 'soon',
      parse: text,
      readBy: [],
      local: false,
      doc: 'a wait',
    });
    expectTypeOf(entry.default).toEqualTypeOf<'soon'>();
    expectTypeOf(entry.repoKey).toEqualTypeOf<'wait_for'>();
    expectTypeOf(entry.prop).toEqualTypeOf<'waitFor'>();
    expectTypeOf(entry.unit).toEqualTypeOf<'minutes'>();
    expectTypeOf(SETTINGS.maxAttempts.repoKey).toEqualTypeOf<'max_attempts'>();
    expect(entry.parse('  later ', 'wait_for')).toBe('later');
  });

  it("declares each repository setting's fail-closed rule in its entry", () => {
    expect(SETTINGS.enabled.failClosed).toEqual({ to: false });
    expect(SETTINGS.maxAttempts.failClosed).toBe('lower');
    expect(SETTINGS.githubApiUrl).not.toHaveProperty('failClosed');
  });
});
