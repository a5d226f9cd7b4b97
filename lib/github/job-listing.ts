import { IncompleteListingError } from '../errors.js';
import type { JobFacts } from '../model.js';
import type { RepoRequests } from './repo-requests.js';

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

/** Every job a listing names, as facts; a listing shorter than GitHub's total is an error, never a decision. */
export async function listJobs(
  calls: RepoRequests,
  route: string,
  params: Record<string, string | number>,
  attempt: number | undefined,
  what: string,
): Promise<JobFacts[]> {
  const jobs: JobFacts[] = [];
  let total = 0;
  for await (const page of calls.pages(route, params)) {
    total = (page.data as { total_count?: number }).total_count ?? total;
    const list = Array.isArray(page.data) ? page.data : (page.data as { jobs: RestJob[] }).jobs;
    for (const j of list as RestJob[]) jobs.push(toJob(j, attempt));
  }
  if (total > jobs.length) throw new IncompleteListingError(`listed ${jobs.length} of ${total} jobs of ${what}`);
  return jobs;
}
