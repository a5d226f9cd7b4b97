import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import {
  type FunctionName,
  type ResourceName,
  resourceEnvironment,
  resourcesOf,
} from '../../lib/config/settings-schema.js';
import { HANDLERS } from './handlers.js';
import { type RepriseFunctionProps } from './reprise-function.js';
import type { ResolvedProps } from '../props/props-schema.js';
import { functionEnvironment } from '../props/resolve.js';
import { grantTableAccess, type Storage } from '../storage.js';

/** What the functions of the construct are built from: its props and the resources they share. */
export interface FunctionDeps {
  readonly props: ResolvedProps;
  readonly storage: Storage;
  readonly workQueue: Queue;
  readonly eventBus: IEventBus;
}

/** The props every function takes alike. */
type Common = Pick<
  RepriseFunctionProps,
  'handler' | 'metricsNamespace' | 'logLevel' | 'logRetention' | 'removalPolicy' | 'bundleAwsSdk' | 'environment'
>;

/**
 * One function's handler, logging and bundling props, and its environment from the schema: the
 * resources it reads (`RESOURCE_ENV`) and every setting it reads, nothing else.
 */
export function commonProps(fn: FunctionName, deps: FunctionDeps): Common {
  const { props: p, storage } = deps;
  const resources = resourceEnvironment(fn, {
    table: storage.table.tableName,
    workQueue: deps.workQueue.queueUrl,
    webhookSecret: storage.webhookSecret.secretArn,
    githubAppSecret: storage.githubAppSecret.secretArn,
    signalSecret: storage.signalSecret.secretArn,
  });
  return {
    handler: HANDLERS[fn],
    metricsNamespace: p.metricsNamespace,
    logLevel: p.logLevel,
    logRetention: p.logRetention,
    removalPolicy: p.removalPolicy,
    bundleAwsSdk: p.bundleAwsSdk,
    environment: { ...resources, ...functionEnvironment(fn, p.settings) },
  };
}

/**
 * Grants `fn` what its environment hands it (`RESOURCE_ENV`), so the two cannot drift: the table
 * as lib/ledger/access.ts declares the function's access, and each secret, read. The work queue
 * is granted where it is used, as sending and consuming differ.
 */
export function grantResources(fn: FunctionName, deps: FunctionDeps, grantee: IGrantable): void {
  const { storage } = deps;
  const secrets: Record<Exclude<ResourceName, 'table' | 'workQueue'>, ISecret> = {
    webhookSecret: storage.webhookSecret,
    githubAppSecret: storage.githubAppSecret,
    signalSecret: storage.signalSecret,
  };
  for (const resource of resourcesOf(fn)) {
    if (resource === 'table') grantTableAccess(storage.table, grantee, fn);
    else if (resource !== 'workQueue') secrets[resource].grantRead(grantee);
  }
}
