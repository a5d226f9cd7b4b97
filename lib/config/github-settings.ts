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

/**
 * The allowed log hosts: the configured ones (GitHub's when none are), and always the API's own
 * host, which already receives the App's token: a GHES host, a proxy or a data-residency host
 * may redirect a log to itself.
 */
export function logHostsFor(apiUrl: string, configured?: readonly string[]): string[] {
  const own = new URL(apiUrl).hostname;
  const hosts = [...(configured ?? DEFAULT_LOG_HOSTS)];
  return hosts.some((h) => h.toLowerCase() === own.toLowerCase()) ? hosts : [...hosts, own];
}

/** How much of a job log is read: its head and its tail, half each. */
export const DEFAULT_LOG_WINDOW_BYTES = 8 * 1024 * 1024;

/** A GitHub request (a log read included, its body too) not answered in this long is abandoned. */
export const GITHUB_REQUEST_TIMEOUT_MS = 5_000;

/**
 * GitHub round trips one after another on a decision's longest common path: the configuration
 * beside the job listing, the owner's configuration on a first decision, the staleness check's
 * two, the annotations, a log's redirect and read, and the re-run call.
 */
export const DECISION_ROUND_TRIPS = 8;

/** What one decision needs when every round trip takes up to its timeout: the worker takes no new message with less left. */
export const DECISION_NEED_MS = GITHUB_REQUEST_TIMEOUT_MS * DECISION_ROUND_TRIPS;
