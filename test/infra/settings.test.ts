import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FunctionName, toEnvValue, type Value } from '../../lib/config/settings-schema.js';
import { propsFromContext } from '../../infra/context.js';
import { RepriseStack } from '../../infra/reprise-stack.js';
import { deployed, type Env, environments, sampleContext, sampleProps } from './settings-support.js';
import { synthReprise, testApp } from './synth.js';

function synthFromContext(context: Record<string, unknown>) {
  const { app } = testApp({ context });
  const { stackName, props } = propsFromContext(app.node);
  const stack = new RepriseStack(app, stackName, {
    reprise: props,
    env: { account: '123456789012', region: 'eu-west-1' },
  });
  return { stack, template: Template.fromStack(stack) };
}

describe('settings schema: every entry point reaches the deployed functions', () => {
  it('every setting a deployed function reads has a prop, a context key and a sample unlike its default', () => {
    expect(deployed.length).toBeGreaterThan(20);
    for (const { name, s } of deployed) {
      expect(s.env, name).toBeDefined();
      expect(s.prop, name).toBeDefined();
      expect(s.context, name).toBeDefined();
      expect(s.sample, name).toBeDefined();
      expect(s.sample, name).not.toEqual(s.default);
      // The sample is a valid value: the parser takes it back unchanged.
      expect(s.parse(s.sample, name)).toEqual(s.sample);
    }
  });

  describe.each([
    ['props', () => synthReprise(sampleProps())],
    ['context', () => synthFromContext(sampleContext())],
  ] as const)('set through %s', (_via, synth) => {
    let envs: Record<FunctionName, Env>;
    beforeAll(() => {
      const { stack, template } = synth();
      envs = environments(stack, template);
    }, 180_000);

    it('every setting a deployed function reads can be set through props and context and reaches its environment', () => {
      const missing: string[] = [];
      for (const { name, s } of deployed) {
        for (const fn of s.readBy) {
          const want = toEnvValue(s, s.sample as Value);
          const got = envs[fn][s.env as string];
          if (got !== want)
            missing.push(`${name}: ${fn} ${s.env}=${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
        }
      }
      expect(missing).toEqual([]);
    });

    it('a function gets only the settings the schema says it reads', () => {
      const schemaEnv = new Set(deployed.map(({ s }) => s.env));
      for (const [fn, env] of Object.entries(envs) as [FunctionName, Env][]) {
        for (const key of Object.keys(env).filter((k) => schemaEnv.has(k))) {
          const s = deployed.find((d) => d.s.env === key)?.s;
          expect(s?.readBy, `${fn} has ${key}`).toContain(fn);
        }
      }
    });
  });

  it('cdk synth -c repositoryAllowList=org/a,org/b puts the allow-list into the worker environment', () => {
    const { stack, template } = synthFromContext({ repositoryAllowList: 'org/a,org/b' });
    const envs = environments(stack, template);
    expect(envs.worker.REPOSITORY_ALLOW_LIST).toBe('org/a,org/b');
    expect(envs.reconciler.REPOSITORY_ALLOW_LIST).toBeUndefined();
  }, 180_000);

  it('without an allow-list the worker has none, so every installed repository is decided', () => {
    const { stack, template } = synthFromContext({});
    expect(environments(stack, template).worker.REPOSITORY_ALLOW_LIST).toBeUndefined();
  }, 180_000);
});
