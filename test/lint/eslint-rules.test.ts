import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { repriseRules } from './eslint-rules.mjs';

RuleTester.describe = describe;
RuleTester.it = it;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

describe('lint: an export of lib/ carries TSDoc', () => {
  tester.run('exports-have-tsdoc', repriseRules.rules['exports-have-tsdoc'], {
    valid: [
      '/** What it is for. */\nexport function f() {}',
      '/** What it holds. */\nexport interface I { a: number }',
      '/** The one rule. */\nexport const A = 1, B = 2;',
      '/** A kind. */\nexport type T = string;',
      "export { f } from './f.js';",
      "export * from './f.js';",
      'const x = 1;\nfunction f() {}',
    ],
    invalid: [
      { code: 'export function f() {}', errors: [{ messageId: 'missing', data: { name: 'f' } }] },
      { code: '// a line comment is not TSDoc\nexport const a = 1;', errors: [{ messageId: 'missing' }] },
      { code: '/* a block that is not TSDoc */\nexport class C {}', errors: [{ messageId: 'missing' }] },
      { code: 'export type T = string;', errors: [{ messageId: 'missing', data: { name: 'T' } }] },
      { code: 'export default function () {}', errors: [{ messageId: 'missing', data: { name: 'default' } }] },
    ],
  });
});

describe('lint: the rules of issue 45 hold every module of lib/, with no exemption', () => {
  it('every lib/ module is linted for functions past 60 lines and for exports without TSDoc', async () => {
    const { ESLint } = await import('eslint');
    const eslint = new ESLint();
    const { readdirSync } = await import('node:fs');
    const modules = readdirSync('lib', { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => `lib/${f}`);
    expect(modules.length).toBeGreaterThan(200);
    const missing: string[] = [];
    for (const path of modules) {
      const config = (await eslint.calculateConfigForFile(path)) as { rules: Record<string, unknown> };
      const long = config.rules['max-lines-per-function'] as [number, { max: number }] | undefined;
      if (!long || long[0] !== 2 || long[1].max !== 60) missing.push(`${path}: max-lines-per-function`);
      if ((config.rules['reprise/exports-have-tsdoc'] as [number] | undefined)?.[0] !== 2)
        missing.push(`${path}: exports-have-tsdoc`);
    }
    expect(missing).toEqual([]);
  });
});
