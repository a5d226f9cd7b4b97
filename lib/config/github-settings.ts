/** Where GitHub is and what the worker may read from it: plain values, no client. */

/** GitHub Enterprise Server serves its REST API under `/api/v3`. */
export const isGhesApiUrl = (apiUrl: string): boolean => /\/api\/v3\/*$/.test(apiUrl);

/** GHES serves GraphQL at `/api/graphql` beside `/api/v3`; github.com, ghe.com and the simulator at `/graphql`. */
export function graphqlUrlFor(apiUrl: string): string {
  const base = apiUrl.replace(/\/+$/, '');
  return isGhesApiUrl(base) ? `${base.slice(0, -'/v3'.length)}/graphql` : `${base}/graphql`;
}

/** Hosts GitHub serves job logs from after the 302 (github.com); GHES adds its own host. */
export const DEFAULT_LOG_HOSTS: readonly string[] = [
  'pipelines.actions.githubusercontent.com',
  '*.actions.githubusercontent.com',
  'results-receiver.actions.githubusercontent.com',
  '*.blob.core.windows.net',
];

/** The log hosts when none are configured: GitHub's, and the GHES host itself. */
export function defaultLogHosts(apiUrl: string): string[] {
  return [...DEFAULT_LOG_HOSTS, ...(isGhesApiUrl(apiUrl) ? [new URL(apiUrl).hostname] : [])];
}

/** How much of a job log is read: its head and its tail, half each. */
export const DEFAULT_LOG_WINDOW_BYTES = 8 * 1024 * 1024;
