import { ConfigError } from '../errors.js';
import { type FunctionName, FUNCTION_NAMES } from './setting.js';
import type { Env } from './environment.js';

/**
 * The environment names of the deployed functions that are not settings, declared beside the
 * settings table so the construct that sets them and the functions that read them share one
 * spelling: the stack's resources each function uses, what the construct sets for each process,
 * and what the platform sets on its own.
 */

/** One resource of the stack a function finds through its environment. */
export interface ResourceEnv {
  readonly env: string;
  /** Deployed functions that read it: the construct hands it to exactly these. */
  readonly readBy: readonly FunctionName[];
  readonly doc: string;
}

/** Each stack resource a function finds through its environment: the variable, who reads it, what it is. */
export const RESOURCE_ENV = {
  table: { env: 'TABLE_NAME', readBy: FUNCTION_NAMES, doc: 'the DynamoDB table' },
  workQueue: {
    env: 'QUEUE_URL',
    readBy: ['intake', 'worker', 'reconciler', 'signalIntake', 'ec2Signal'],
    doc: "the FIFO work queue's URL (the worker changes a message's visibility there; the signal functions send early recovery's requests)",
  },
  webhookSecret: { env: 'WEBHOOK_SECRET_ARN', readBy: ['intake'], doc: 'the webhook secret (its ARN)' },
  githubAppSecret: {
    env: 'GITHUB_APP_SECRET_ARN',
    readBy: ['worker', 'reconciler'],
    doc: 'the GitHub App credentials (their ARN)',
  },
  signalSecret: { env: 'SIGNAL_SECRET_ARN', readBy: ['signalIntake'], doc: 'the signal secret (its ARN)' },
} as const satisfies Record<string, ResourceEnv>;

/** Set by the construct on every function's Node.js process: Powertools' service name, Node's options. */
export const FUNCTION_PROCESS_ENV = { serviceName: 'POWERTOOLS_SERVICE_NAME', nodeOptions: 'NODE_OPTIONS' } as const;

/** Set by the platform itself: Lambda's log stream, the CDK CLI's account and region. */
export const PLATFORM_ENV = {
  logStream: 'AWS_LAMBDA_LOG_STREAM_NAME',
  cdkAccount: 'CDK_DEFAULT_ACCOUNT',
  cdkRegion: 'CDK_DEFAULT_REGION',
} as const;

/** A resource of the stack, by its key in {@link RESOURCE_ENV}. */
export type ResourceName = keyof typeof RESOURCE_ENV;
/** Every resource name, in the table's order. */
export const RESOURCE_NAMES = Object.keys(RESOURCE_ENV) as ResourceName[];

/** The resources function `F` reads, as a type. */
export type ResourceOf<F extends FunctionName> = {
  [K in ResourceName]: F extends (typeof RESOURCE_ENV)[K]['readBy'][number] ? K : never;
}[ResourceName];

const readBy = (name: ResourceName): readonly FunctionName[] => RESOURCE_ENV[name].readBy;

/** The resources a function reads. */
export const resourcesOf = <F extends FunctionName>(fn: F): ResourceOf<F>[] =>
  RESOURCE_NAMES.filter((n) => readBy(n).includes(fn)) as ResourceOf<F>[];

/** The resources `fn` reads from its environment; a missing one fails loudly, naming its variable. */
export function resourcesFromEnv<F extends FunctionName>(env: Env, fn: F): Record<ResourceOf<F>, string> {
  const names = resourcesOf(fn);
  const missing = names.map((n) => RESOURCE_ENV[n].env).filter((e) => !env[e]);
  if (missing.length > 0) throw new ConfigError(`missing environment variable(s): ${missing.join(', ')}`);
  return Object.fromEntries(names.map((n) => [n, env[RESOURCE_ENV[n].env] as string])) as Record<ResourceOf<F>, string>;
}

/** The environment that hands `fn` the resources it reads, from every resource's value. */
export function resourceEnvironment(
  fn: FunctionName,
  values: Readonly<Record<ResourceName, string>>,
): Record<string, string> {
  return Object.fromEntries(resourcesOf(fn).map((n) => [RESOURCE_ENV[n].env, values[n]]));
}
