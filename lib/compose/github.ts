import type { PaceSettings } from '../config/env.js';
import type { GitHubCredentials } from '../config/secrets.js';
import { type AppClient, createAppClient, createClientFactory, type GitHubClients } from '../github/client.js';
import type { Log, MetricSink } from '../obs/types.js';

/** Where GitHub is, and the spacing of an installation's writes. */
export interface GitHubSettings {
  readonly apiUrl: string;
  readonly pace: Pick<PaceSettings, 'spacingMs'>;
}

/** How a process tunes its GitHub clients beyond the settings (the local runtime's callers shorten them). */
export interface GitHubTuning {
  /** Base of the retry backoff, in ms. */
  readonly retryBaseMs?: number;
  /** A request's timeout, in ms; GITHUB_REQUEST_TIMEOUT_MS when absent. */
  readonly requestTimeoutMs?: number;
  /** This process's spacing of REST writes per installation; the pace's `spacingMs` when absent. */
  readonly writeSpacingMs?: number;
  /** Counts each response's `x-ratelimit-remaining` as RateLimitRemaining (the worker's alarm reads it). */
  readonly rateLimitMetrics?: MetricSink;
}

const common = (settings: GitHubSettings, log: Log, tuning: GitHubTuning) => ({
  apiUrl: settings.apiUrl,
  log,
  ...(tuning.retryBaseMs !== undefined && { retryBaseMs: tuning.retryBaseMs }),
  ...(tuning.requestTimeoutMs !== undefined && { requestTimeoutMs: tuning.requestTimeoutMs }),
});

/** The installation clients of a process: the worker's and the reconciler's, one factory when they share a process. */
export function githubClients(
  settings: GitHubSettings,
  credentials: GitHubCredentials,
  log: Log,
  tuning: GitHubTuning = {},
): (installationId: number | null) => GitHubClients {
  const metrics = tuning.rateLimitMetrics;
  return createClientFactory({
    ...common(settings, log, tuning),
    credentials,
    writeSpacingMs: tuning.writeSpacingMs ?? settings.pace.spacingMs,
    ...(metrics && { onRateLimitRemaining: (remaining: number) => metrics.count('RateLimitRemaining', remaining) }),
  });
}

/** The App's own client for the `/app` endpoints (webhook deliveries); none with a token, which cannot call them. */
export function githubAppClient(
  settings: GitHubSettings,
  credentials: GitHubCredentials,
  log: Log,
  tuning: GitHubTuning = {},
): AppClient | undefined {
  return credentials.kind === 'app' ? createAppClient({ ...common(settings, log, tuning), credentials }) : undefined;
}
