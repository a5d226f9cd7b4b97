import type { AttemptRecord, ListedRun } from '../../lib/backtest/history.js';
import { deploymentSettings } from '../../lib/config/env.js';
import { createClientFactory } from '../../lib/github/client.js';
import { noMetrics } from '../../lib/obs/memory-metrics.js';
import type { Log } from '../../lib/obs/types.js';
import type { EvaluationDeps } from '../../lib/worker/evaluate.js';
import type { GitHubSimulator } from '../sim/index.js';
import { APP_ID, appEnv, testPrivateKey } from '../support/harness.js';

/** A completed attempt, failed unless told otherwise, started by a person. */
export const attempt = (
  n: number,
  startedAt: string,
  completedAt: string,
  over: Partial<AttemptRecord> = {},
): AttemptRecord => ({
  number: n,
  status: 'completed',
  conclusion: 'failure',
  startedAt,
  completedAt,
  actor: { login: 'alice', bot: false },
  ...over,
});

/** A push run of acme/web's CI on main, as the listing shows it. */
export const run = (id: number, createdAt: string, over: Partial<ListedRun> = {}): ListedRun => ({
  repository: { id: 1, owner: 'acme', name: 'web' },
  id,
  workflowId: 7,
  workflowName: 'CI',
  workflowPath: '.github/workflows/ci.yml',
  event: 'push',
  headSha: `sha${id}`,
  headBranch: 'main',
  createdAt,
  pullRequests: [],
  htmlUrl: `https://github.com/acme/web/actions/runs/${id}`,
  latest: attempt(1, createdAt, createdAt),
  ...over,
});

/** The worker's client factory and settings against a simulator, with nothing logged. */
export function simContext(sim: GitHubSimulator, installationId: number, fetch?: typeof globalThis.fetch) {
  const settings = deploymentSettings(appEnv(sim.url));
  const clients = createClientFactory({
    apiUrl: settings.apiUrl,
    credentials: { kind: 'app', appId: APP_ID, privateKey: testPrivateKey() },
    log: quiet,
    retryBaseMs: 1,
    requestTimeoutMs: 10 * 60_000,
    ...(fetch && { fetch }),
  })(installationId);
  const evaluation: EvaluationDeps = {
    signalWindow: settings.signalWindow,
    logHosts: settings.logHosts,
    logWindowBytes: settings.logWindowBytes,
    log: quiet,
    metrics: noMetrics,
  };
  return { settings, clients, evaluation };
}

const quiet: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
