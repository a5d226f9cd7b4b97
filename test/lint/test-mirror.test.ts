import { describe, expect, it } from 'vitest';
import { hasNoLogicOfItsOwn, MIRROR_FLOOR, testMirror } from './test-mirror.js';

describe('tests mirror lib/: which modules count', () => {
  it.each([
    [
      'interfaces and type aliases',
      'import type { X } from "./x.js";\nexport interface A { x: X }\nexport type B = A;',
      true,
    ],
    ['an index of re-exports', "export { a } from './a.js';\nexport * from './b.js';", true],
    ['a constant', 'export const LIMIT = 10;', false],
    ['a function', 'export function f(n: number) { return n + 1; }', false],
    ['a class', 'export class Store { get() { return 1; } }', false],
    ['a re-export beside logic', "export { a } from './a.js';\nexport const b = 2;", false],
  ])('%s: not counted = %s', (_what, source, skipped) => {
    expect(hasNoLogicOfItsOwn(source)).toBe(skipped);
  });

  it('counts lib/<folder>/<module>.ts as mirrored only by test/<folder>/<module>.test.ts', () => {
    const report = testMirror();
    expect(report.mirrored).toContain('lib/ledger/table.ts');
    expect(report.skipped).toContain('lib/obs/types.ts');
    expect(report.counted.length).toBe(report.mirrored.length + report.missing.length);
  });

  it('at least 90 % of the lib/ modules with logic have their unit tests in test/<folder>/<module>.test.ts', () => {
    expect(MIRROR_FLOOR).toBe(0.9);
    const report = testMirror();
    expect(report.share, `missing:\n${report.missing.join('\n')}`).toBeGreaterThanOrEqual(MIRROR_FLOOR);
  });
});
