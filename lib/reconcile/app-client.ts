import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { retry } from '@octokit/plugin-retry';
import type { Log } from '../obs/ports.js';

const AppOctokit = Octokit.plugin(retry);

/** A client authenticated as the App itself: auth-app signs a JWT (`type: 'app'`) for the `/app` endpoints. */
export type AppClient = Octokit;

export interface AppClientOptions {
  readonly apiUrl: string;
  readonly appId: string;
  readonly privateKey: string;
  readonly log: Log;
  /** Base of plugin-retry's backoff, in ms (tests shorten it). */
  readonly retryBaseMs?: number;
}

export function createAppClient(opts: AppClientOptions): AppClient {
  return new AppOctokit({
    baseUrl: opts.apiUrl.replace(/\/+$/, ''),
    userAgent: 'reprise',
    authStrategy: createAppAuth,
    auth: { appId: opts.appId, privateKey: opts.privateKey },
    retry: { retryAfterBaseValue: opts.retryBaseMs ?? 1000 },
    log: {
      debug: (m: string) => opts.log.debug(m),
      info: (m: string) => opts.log.debug(m),
      warn: (m: string) => opts.log.warn(m),
      error: (m: string) => opts.log.error(m),
    },
  });
}
