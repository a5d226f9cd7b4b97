import { IncompleteListingError } from '../errors.js';
import type { JobFacts } from '../model.js';
import { type RepoRequests, statusOf } from './repo-requests.js';

interface RestJob {
  id: number;
  node_id: string;
  name: string;
  status: string;
  conclusion: string | null;
  runner_name: string | null;
  runner_group_name?: string | null;
  started_at?: string | null;
  completed_at: string | null;
  run_attempt?: number;
}

const toJob = (j: RestJob, attempt: number | undefined): JobFacts => ({
  id: j.id,
  nodeId: j.node_id,
  name: j.name,
  status: j.status,
  conclusion: j.conclusion as JobFacts['conclusion'],
  runnerName: j.runner_name,
  runnerGroupName: j.runner_group_name ?? null,
  startedAt: j.started_at ?? null,
  completedAt: j.completed_at,
  runAttempt: j.run_attempt ?? attempt ?? 0,
});

/** A listing's jobs, and its ETag when one page held them all (a condition on the first page says nothing of the others). */
export interface JobListing {
  readonly jobs: JobFacts[];
  readonly etag?: string;
}

/** A conditional listing: `unchanged` when GitHub answered 304 (nothing changed, and no rate limit spent). */
export type ConditionalListing = ({ readonly kind: 'listed' } & JobListing) | { readonly kind: 'unchanged' };

/** Every job a listing names, as facts; a listing shorter than GitHub's total is an error, never a decision. */
export async function listJobs(
  calls: RepoRequests,
  route: string,
  params: Record<string, string | number>,
  attempt: number | undefined,
  what: string,
): Promise<JobFacts[]> {
  return (await listJobsTagged(calls, route, params, attempt, what)).jobs;
}

/** Every job a listing names, with the listing's ETag when one page held it. */
export function listJobsTagged(
  calls: RepoRequests,
  route: string,
  params: Record<string, string | number>,
  attempt: number | undefined,
  what: string,
): Promise<JobListing> {
  return readPages(calls, route, params, attempt, what, undefined);
}

/**
 * The listing again, on the condition that it changed since the one `etag` names (a one-page
 * listing's): GitHub answers 304 when it did not, and a 304 costs no rate limit. A listing that
 * changed is read in full, pages and all.
 */
export async function listJobsIfChanged(
  calls: RepoRequests,
  route: string,
  params: Record<string, string | number>,
  attempt: number | undefined,
  what: string,
  etag: string,
): Promise<ConditionalListing> {
  try {
    return { kind: 'listed', ...(await readPages(calls, route, params, attempt, what, { 'if-none-match': etag })) };
  } catch (err) {
    if (statusOf(err) === 304) return { kind: 'unchanged' };
    throw err;
  }
}

async function readPages(
  calls: RepoRequests,
  route: string,
  params: Record<string, string | number>,
  attempt: number | undefined,
  what: string,
  headers: Record<string, string> | undefined,
): Promise<JobListing> {
  const jobs: JobFacts[] = [];
  let total = 0;
  let pages = 0;
  let etag: string | undefined;
  for await (const page of calls.pages(route, params, headers)) {
    if (pages++ === 0 && typeof page.headers.etag === 'string') etag = page.headers.etag;
    total = (page.data as { total_count?: number }).total_count ?? total;
    const list = Array.isArray(page.data) ? page.data : (page.data as { jobs: RestJob[] }).jobs;
    for (const j of list as RestJob[]) jobs.push(toJob(j, attempt));
  }
  if (total > jobs.length) throw new IncompleteListingError(`listed ${jobs.length} of ${total} jobs of ${what}`);
  // A condition on the first page would say nothing of the others: only a one-page listing keeps its ETag.
  return { jobs, ...(pages === 1 && etag && { etag }) };
}
