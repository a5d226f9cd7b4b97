import { describe, expect, it } from 'vitest';
import {
  RESOURCE_ENV,
  RESOURCE_NAMES,
  resourceEnvironment,
  resourcesFromEnv,
  resourcesOf,
} from '../../lib/config/function-env.js';
import { FUNCTION_NAMES } from '../../lib/config/setting.js';
import { ConfigError } from '../../lib/errors.js';

const VALUES = {
  table: 'reprise-table',
  workQueue: 'https://sqs.eu-west-1.amazonaws.com/123456789012/runs.fifo',
  webhookSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:webhook',
  githubAppSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:app',
  signalSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:signal',
};

describe('resourcesOf', () => {
  it.each([
    ['intake', ['table', 'workQueue', 'webhookSecret']],
    ['worker', ['table', 'workQueue', 'githubAppSecret']],
    ['reconciler', ['table', 'workQueue', 'githubAppSecret']],
    // The signal functions send early recovery's requests to the work queue.
    ['signalIntake', ['table', 'workQueue', 'signalSecret']],
    ['ec2Signal', ['table', 'workQueue']],
  ] as const)('%s reads %j', (fn, want) => {
    expect(resourcesOf(fn)).toEqual(want);
  });

  it('every resource is read by some function', () => {
    const read = new Set(FUNCTION_NAMES.flatMap((fn) => resourcesOf(fn)));
    expect([...read].sort()).toEqual([...RESOURCE_NAMES].sort());
  });
});

describe('resourceEnvironment', () => {
  it('hands a function only the resources it reads, under their variables', () => {
    expect(resourceEnvironment('signalIntake', VALUES)).toEqual({
      TABLE_NAME: VALUES.table,
      QUEUE_URL: VALUES.workQueue,
      SIGNAL_SECRET_ARN: VALUES.signalSecret,
    });
    expect(resourceEnvironment('ec2Signal', VALUES)).toEqual({ TABLE_NAME: VALUES.table, QUEUE_URL: VALUES.workQueue });
  });
});

describe('resourcesFromEnv', () => {
  it('reads back what resourceEnvironment wrote, by resource name', () => {
    for (const fn of FUNCTION_NAMES) {
      const read: Record<string, string> = resourcesFromEnv(resourceEnvironment(fn, VALUES), fn);
      expect(Object.keys(read)).toEqual(resourcesOf(fn));
      for (const name of resourcesOf(fn)) expect(read[name]).toBe(VALUES[name]);
    }
  });

  it('ignores variables of resources the function does not read', () => {
    const env = { ...resourceEnvironment('worker', VALUES), SIGNAL_SECRET_ARN: 'x' };
    expect(resourcesFromEnv(env, 'worker')).not.toHaveProperty('signalSecret');
  });

  it('names every missing (or empty) variable, in the declared order', () => {
    const read = () => resourcesFromEnv({ QUEUE_URL: VALUES.workQueue, WEBHOOK_SECRET_ARN: '' }, 'intake');
    expect(read).toThrow(ConfigError);
    expect(read).toThrow('missing environment variable(s): TABLE_NAME, WEBHOOK_SECRET_ARN');
  });

  it('declares a line of doc for each resource', () => {
    for (const name of RESOURCE_NAMES) expect(RESOURCE_ENV[name].doc.length).toBeGreaterThan(10);
  });
});
