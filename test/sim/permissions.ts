import type { Route } from './http.js';

export type Access = 'read' | 'write';

/** The installation permission each endpoint needs, as GitHub's REST reference lists it. */
const NEEDS: Readonly<Record<string, readonly [string, Access]>> = {
  'GET /repos/{owner}/{repo}/actions/runs': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs': ['actions', 'read'],
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs': ['actions', 'write'],
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun': ['actions', 'write'],
  'POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun': ['actions', 'write'],
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations': ['checks', 'read'],
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}': ['checks', 'read'],
  'POST /repos/{owner}/{repo}/check-runs': ['checks', 'write'],
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': ['checks', 'write'],
  'GET /repos/{owner}/{repo}/pulls/{pull_number}': ['pull_requests', 'read'],
  'GET /repos/{owner}/{repo}/contents/{path}': ['contents', 'read'],
};

/** What a route needs beyond `metadata: read` (which every installation has); null for nothing. */
export function permissionFor(route: Pick<Route, 'method' | 'template'>): readonly [string, Access] | null {
  return NEEDS[`${route.method} ${route.template}`] ?? null;
}

/** Whether granted permissions cover `access` to `name`; write includes read. */
export function grants(granted: Readonly<Record<string, string>>, name: string, access: Access): boolean {
  const have = granted[name];
  return have === 'write' || (have === 'read' && access === 'read');
}

/** Whether every permission asked for is within what the installation was granted. */
export function withinGrant(
  asked: Readonly<Record<string, string>>,
  granted: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(asked).every(
    ([name, level]) => (level === 'read' || level === 'write') && grants(granted, name, level),
  );
}

export const NOT_ACCESSIBLE = 'Resource not accessible by integration';

/** What the App asks for when merge queues are on: `enqueuePullRequest` needs these (docs/operations.md). */
export const MERGE_QUEUE_PERMISSIONS: Readonly<Record<string, string>> = {
  actions: 'write',
  checks: 'read',
  contents: 'write',
  metadata: 'read',
  pull_requests: 'write',
  merge_queues: 'write',
};
