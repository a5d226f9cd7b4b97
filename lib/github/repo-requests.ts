import { RateLimitedError } from '../errors.js';
import type { GitHubClient, GitHubClients } from './client.js';
import { meteredRequest } from './client.js';

/** What each call about one repository goes through: its name and its counted requests. */
export interface RepoRequests {
  readonly owner: string;
  readonly repo: string;
  readonly rest: GitHubClient['request'];
  readonly graphql: GitHubClient['request'];
  /** Absolute: GHES serves GraphQL beside, not below, its REST base. */
  readonly graphqlUrl: string;
  /** Every page of a listing of this repository, 100 to a page, each with its headers; `headers` go with each request. */
  readonly pages: (
    route: string,
    params: Record<string, string | number>,
    headers?: Record<string, string>,
  ) => AsyncIterable<{ data: unknown; headers: Record<string, string | number | undefined> }>;
}

/** The counted REST, GraphQL and paginated calls of one repository, each request told to `count`. */
export function repoRequests(
  clients: GitHubClients,
  repo: { readonly owner: string; readonly repo: string; readonly graphqlUrl: string },
  count: () => void,
): RepoRequests {
  const rest = meteredRequest(clients.rest, count);
  const paginate = clients.rest.paginate;
  return {
    ...repo,
    rest,
    graphql: meteredRequest(clients.graphql, count),
    pages: (route, params, headers) => {
      const [method, url] = route.split(' ');
      // Paginating the metered request keeps every page counted.
      const iterate = paginate.iterator as unknown as (
        request: GitHubClient['request'],
        parameters: Record<string, unknown>,
      ) => AsyncIterable<{ data: unknown; headers: Record<string, string | number | undefined> }>;
      const parameters = { method, url, owner: repo.owner, repo: repo.repo, ...params, per_page: 100 };
      return iterate(rest, headers ? { ...parameters, headers } : parameters);
    },
  };
}

/** The parts of a failed Octokit request that are read: its status and GitHub's message. */
export interface HttpFault {
  readonly status?: number;
  readonly message?: string;
  readonly response?: { readonly data?: { readonly message?: string } };
}

/** The HTTP status of a failed call; a rate limit has none (it is a RateLimitedError). */
export const statusOf = (err: unknown): number | undefined =>
  err instanceof RateLimitedError ? undefined : (err as HttpFault | undefined)?.status;
