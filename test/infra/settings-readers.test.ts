/**
 * Every setting a function's code reads reaches that function. The schema's `readBy` is what the
 * construct hands out; this test asks the bundles themselves what they read (each one loaded in
 * its own process with a recording environment) and holds the synthesized template and the
 * schema to that.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HANDLERS, PROJECT_ROOT, prebuiltName } from '../../infra/functions/handlers.js';
import {
  type FunctionName,
  FUNCTION_NAMES,
  RESOURCE_ENV,
  RESOURCE_NAMES,
  toEnvValue,
  type Value,
} from '../../lib/config/settings-schema.js';
import { deployed, type Env, environments, sampleProps } from './settings-support.js';
import { synthReprise } from './synth.js';

/** The EC2 signal function is always deployed with its SDK bundled. */
const bundleOf = (fn: FunctionName): string => {
  const entry = HANDLERS[fn].entry;
  return join(PROJECT_ROOT, 'dist/lambda', prebuiltName(entry, fn === 'ec2Signal'), 'index.mjs');
};

/** The names `fn`'s bundle reads from process.env while it loads with `env`. */
function envReads(fn: FunctionName, env: Env): Set<string> {
  const out = execFileSync(process.execPath, [join(PROJECT_ROOT, 'test/support/env-reads.mjs'), bundleOf(fn)], {
    env: {
      PATH: process.env.PATH,
      AWS_REGION: 'eu-west-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...flatten(env),
    },
    encoding: 'utf8',
  });
  const line = out.split('\n').find((l) => l.startsWith('ENV-READS '));
  if (!line) throw new Error(`${fn}: the bundle printed no reads:\n${out}`);
  return new Set(JSON.parse(line.slice('ENV-READS '.length)) as string[]);
}

/** Refs and GetAtts of the template become placeholder strings: only the names matter here. */
const flatten = (env: Env): Record<string, string> =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, typeof v === 'string' ? v : `resolved-${k}`]));

describe('settings: every function whose code reads a setting gets it', () => {
  let envs: Record<FunctionName, Env>;
  let reads: Record<FunctionName, Set<string>>;
  beforeAll(() => {
    const { stack, template } = synthReprise(sampleProps());
    envs = environments(stack, template);
    reads = Object.fromEntries(FUNCTION_NAMES.map((fn) => [fn, envReads(fn, envs[fn])])) as typeof reads;
  }, 180_000);

  it('the recording sees what a bundle reads: the worker reads its table and its App secret', () => {
    expect(reads.worker.has('TABLE_NAME')).toBe(true);
    expect(reads.worker.has('GITHUB_APP_SECRET_ARN')).toBe(true);
    expect(reads.ec2Signal.has('GITHUB_APP_SECRET_ARN')).toBe(false);
  });

  it('synthesized with every setting set, each function gets every deployable setting its code reads, with its value', () => {
    const missing: string[] = [];
    for (const fn of FUNCTION_NAMES) {
      for (const { name, s } of deployed) {
        if (!reads[fn].has(s.env as string)) continue;
        const want = toEnvValue(s, s.sample as Value);
        const got = envs[fn][s.env as string];
        if (got !== want)
          missing.push(`${fn} reads ${s.env} (${name}) but has ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("the schema's readBy names exactly the functions whose code reads each setting", () => {
    const wrong: string[] = [];
    for (const { name, s } of deployed) {
      const byCode = FUNCTION_NAMES.filter((fn) => reads[fn].has(s.env as string));
      if ([...s.readBy].sort().join() !== [...byCode].sort().join()) {
        wrong.push(`${name}: readBy ${s.readBy.join(',')}; read by ${byCode.join(',')}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("the resource list's readBy names exactly the functions whose code reads each resource's name", () => {
    const wrong: string[] = [];
    for (const name of RESOURCE_NAMES) {
      const r = RESOURCE_ENV[name];
      const byCode = FUNCTION_NAMES.filter((fn) => reads[fn].has(r.env));
      if ([...r.readBy].sort().join() !== [...byCode].sort().join()) {
        wrong.push(`${name}: readBy ${r.readBy.join(',')}; read by ${byCode.join(',')}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('with -c report=check_run the deployed reconciler gets REPORT, as the worker does (stuck-queued check runs)', () => {
    expect(reads.reconciler.has('REPORT')).toBe(true);
    expect(envs.reconciler.REPORT).toBe(envs.worker.REPORT);
  });
});
