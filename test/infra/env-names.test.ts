/**
 * Every environment name the construct sets and the functions read is declared once, in the
 * settings schema or in the list beside it (lib/config/function-env.ts); functions/ and infra/
 * spell none themselves. The construct hands each function exactly the resources the list says
 * it reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/functions/handlers.js';
import {
  FUNCTION_NAMES,
  type FunctionName,
  PLATFORM_ENV,
  RESOURCE_ENV,
  RESOURCE_NAMES,
  resourcesOf,
  FUNCTION_PROCESS_ENV,
  SETTING_NAMES,
  settingOf,
} from '../../lib/config/settings-schema.js';
import { type Env, environments, secretsReadBy } from './settings-support.js';
import { synthReprise } from './synth.js';

const SETTING_ENV = SETTING_NAMES.map((n) => settingOf(n).env).filter((e): e is string => e !== undefined);
const DECLARED = [
  ...SETTING_ENV,
  ...RESOURCE_NAMES.map((n) => RESOURCE_ENV[n].env),
  ...Object.values(FUNCTION_PROCESS_ENV),
  ...Object.values(PLATFORM_ENV),
];

/**
 * `process.env.NAME`, `process.env['NAME']` and quoted upper-case names (`'TABLE_NAME'`) in a
 * source; a name in backticks is a doc comment's.
 */
function literalEnvNames(source: string): string[] {
  const found = [
    ...source.matchAll(/process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g),
    ...source.matchAll(/process\.env\[\s*['"`]([^'"`]+)['"`]\s*\]/g),
    ...source.matchAll(/['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"]/g),
  ].map((m) => m[1] as string);
  // A declared name quoted anywhere, even without an underscore (`'PORT'`, `'HOST'`).
  const declared = DECLARED.filter((name) => new RegExp(`['"]${name}['"]`).test(source));
  return [...new Set([...found, ...declared])];
}

function sources(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('environment names: declared once in the schema, never spelled in functions/ or infra/', () => {
  it('the detector finds each way a name can be spelled', () => {
    expect(literalEnvNames("const a = process.env.TABLE_NAME; const b = process.env['QUEUE_URL'];")).toEqual([
      'TABLE_NAME',
      'QUEUE_URL',
    ]);
    expect(literalEnvNames("requireEnv(process.env, ['SIGNAL_SECRET_ARN']); env: { PORT: x, k: 'PORT' }")).toEqual([
      'SIGNAL_SECRET_ARN',
      'PORT',
    ]);
    expect(literalEnvNames('process.env[RESOURCE_ENV.table.env]; // TABLE_NAME, `QUEUE_URL` in a comment')).toEqual([]);
  });

  it.each(['functions', 'infra'])('no file under %s/ spells an environment name', (dir) => {
    const files = sources(dir);
    expect(files.length).toBeGreaterThan(4);
    const spelled = files.flatMap((f) =>
      literalEnvNames(readFileSync(f, 'utf8')).map((name) => `${relative(PROJECT_ROOT, f)}: ${name}`),
    );
    expect(spelled).toEqual([]);
  });

  it('every name is declared once across the settings, the resources, the runtime and the platform', () => {
    const repeated = DECLARED.filter((name, i) => DECLARED.indexOf(name) !== i);
    expect(repeated).toEqual([]);
    expect(RESOURCE_NAMES.map((n) => RESOURCE_ENV[n].env)).toEqual([
      'TABLE_NAME',
      'QUEUE_URL',
      'WEBHOOK_SECRET_ARN',
      'GITHUB_APP_SECRET_ARN',
      'SIGNAL_SECRET_ARN',
    ]);
  });
});

describe('each function gets the resources the schema says it reads, and only declared names', () => {
  let envs: Record<FunctionName, Env>;
  let secretReads: Record<FunctionName, string[]>;
  beforeAll(() => {
    const { stack, template } = synthReprise();
    envs = environments(stack, template);
    secretReads = secretsReadBy(stack, template);
  }, 120_000);

  it.each(FUNCTION_NAMES)('%s may read exactly the secrets its environment names, and no other', (fn) => {
    const named = Object.entries(envs[fn])
      .filter(([k]) => k.endsWith('_SECRET_ARN'))
      .map(([, v]) => (v as unknown as { Ref: string }).Ref);
    expect(secretReads[fn].sort()).toEqual(named.sort());
  });

  it.each(FUNCTION_NAMES)('%s', (fn) => {
    const resourceNames: string[] = RESOURCE_NAMES.map((n) => RESOURCE_ENV[n].env);
    const got = Object.keys(envs[fn]).filter((k) => resourceNames.includes(k));
    expect(got.sort()).toEqual(
      resourcesOf(fn)
        .map((n) => RESOURCE_ENV[n].env)
        .sort(),
    );
    expect(Object.keys(envs[fn]).filter((k) => !DECLARED.includes(k))).toEqual([]);
    expect(envs[fn][FUNCTION_PROCESS_ENV.nodeOptions]).toBe('--enable-source-maps');
  });

  it('the table reaches every function; the App secret only the worker and the reconciler', () => {
    for (const fn of FUNCTION_NAMES) expect(envs[fn]).toHaveProperty('TABLE_NAME');
    expect(FUNCTION_NAMES.filter((fn) => 'GITHUB_APP_SECRET_ARN' in envs[fn]).sort()).toEqual(['reconciler', 'worker']);
  });
});
