import {
  conditionalJson,
  fail,
  intParam,
  json,
  notFound,
  paginate,
  type Route,
  type SimContext,
  type SimRequest,
} from './http.js';
import { workflowJob, workflowRun } from './render-actions.js';
import { rerunFailedJobs, rerunJob, rerunRun, type RerunResult } from './reruns.js';
import type { SimRun } from './runs.js';
import type { SimJob } from './types.js';

const RUNS_DOCS = 'https://docs.github.com/rest/actions/workflow-runs';
const JOBS_DOCS = 'https://docs.github.com/rest/actions/workflow-jobs';

function sameRepo(req: SimRequest, fullName: string): boolean {
  return `${req.params.owner}/${req.params.repo}`.toLowerCase() === fullName.toLowerCase();
}

export function findRun(req: SimRequest, ctx: SimContext): SimRun | null {
  const id = intParam(req, 'run_id');
  const run = id === null ? undefined : ctx.model.runs.get(id);
  return run && sameRepo(req, run.repo) ? run : null;
}

export function findJob(req: SimRequest, ctx: SimContext): { job: SimJob; run: SimRun } | null {
  const id = intParam(req, 'job_id');
  const found = id === null ? undefined : ctx.model.jobs.get(id);
  return found && sameRepo(req, found.run.repo) ? found : null;
}

function rerunAnswer(result: RerunResult, docs: string) {
  return result.ok ? json({}, 201) : fail(result.status, result.message, docs);
}

function matchesStatus(run: SimRun, status: string): boolean {
  return run.status === status || run.conclusion === status;
}

/** A bound of GitHub's date syntax: a date is its whole day (from its start, or to its end). */
function bound(value: string, end: boolean): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) return NaN;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && end ? t + 86_400_000 - 1 : t;
}

/**
 * The `created` filter in GitHub's search syntax for dates: `>=D`, `>D`, `<=D`, `<D`, `A..B`
 * (`*` open), or one date. Null when it cannot be read (GitHub then lists nothing).
 */
export function createdFilter(q: string): ((iso: string) => boolean) | null {
  const at = (iso: string) => Date.parse(iso);
  const range = /^(.+)\.\.(.+)$/.exec(q);
  let from = -Infinity;
  let to = Infinity;
  if (range) {
    if (range[1] !== '*') from = bound(range[1]!, false);
    if (range[2] !== '*') to = bound(range[2]!, true);
  } else {
    const m = /^(>=|<=|>|<)?(.+)$/.exec(q);
    const [op, v] = [m?.[1] ?? '', m?.[2] ?? ''];
    if (op === '>=') from = bound(v, false);
    else if (op === '>') from = bound(v, true) + 1;
    else if (op === '<=') to = bound(v, true);
    else if (op === '<') to = bound(v, false) - 1;
    else [from, to] = [bound(v, false), bound(v, true)];
  }
  if (Number.isNaN(from) || Number.isNaN(to)) return null;
  return (iso) => at(iso) >= from && at(iso) <= to;
}

function listRuns(req: SimRequest, ctx: SimContext, runs: SimRun[]) {
  const q = req.query;
  const created = q.created ? createdFilter(q.created) : () => true;
  const filtered = runs
    .filter((r) => created !== null && created(r.createdAt))
    .filter((r) => sameRepo(req, r.repo))
    .filter((r) => !q.head_sha || r.headSha === q.head_sha)
    .filter((r) => !q.branch || r.headBranch === q.branch)
    .filter((r) => !q.event || r.event === q.event)
    .filter((r) => !q.status || matchesStatus(r, q.status))
    .filter((r) => !q.check_suite_id || String(r.checkSuiteId) === q.check_suite_id)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id);
  const { page, headers } = paginate(filtered, req, ctx);
  const rendered = page.map((r) => {
    const body = workflowRun(ctx.api, ctx.model, r);
    return q.exclude_pull_requests === 'true' ? { ...body, pull_requests: [] } : body;
  });
  return json({ total_count: filtered.length, workflow_runs: rendered }, 200, headers);
}

/** Who a token acts as: an App's installation token is its bot, `<slug>[bot]`. */
const actorOf = (req: SimRequest, ctx: SimContext): string =>
  req.auth.kind === 'token' && req.auth.installationId !== null ? `${ctx.model.app.slug}[bot]` : 'octocat';

function cancelRoute(kind: 'cancel' | 'force-cancel', anchor: string): Route {
  const docs = `${RUNS_DOCS}#${anchor}`;
  return {
    method: 'POST',
    template: `/repos/{owner}/{repo}/actions/runs/{run_id}/${kind}`,
    auth: 'token',
    resource: 'core',
    docs,
    handler: (req, ctx) => {
      const run = findRun(req, ctx);
      if (!run) return notFound(docs);
      const lease = ctx.model.lease;
      const answer =
        kind === 'cancel' ? lease.cancel(run, actorOf(req, ctx)) : lease.forceCancel(run, actorOf(req, ctx));
      const status = answer.ok ? 202 : answer.status;
      ctx.model.cancelRequests.push({ kind, runId: run.id, status, at: Date.now() });
      return answer.ok ? json({}, 202) : fail(answer.status, answer.message, docs);
    },
  };
}

export const actionsRoutes: Route[] = [
  cancelRoute('cancel', 'cancel-a-workflow-run'),
  cancelRoute('force-cancel', 'force-cancel-a-workflow-run'),
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/actions/runs',
    auth: 'token',
    resource: 'core',
    docs: `${RUNS_DOCS}#list-workflow-runs-for-a-repository`,
    handler: (req, ctx) => listRuns(req, ctx, [...ctx.model.runs.values()]),
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
    auth: 'token',
    resource: 'core',
    docs: `${RUNS_DOCS}#list-workflow-runs-for-a-workflow`,
    handler: (req, ctx) => {
      const wf = req.params.workflow_id ?? '';
      const runs = [...ctx.model.runs.values()].filter((r) =>
        /^\d+$/.test(wf) ? r.workflowId === Number(wf) : r.workflowPath.split('/').pop() === wf,
      );
      if (!runs.some((r) => sameRepo(req, r.repo))) return notFound(`${RUNS_DOCS}#list-workflow-runs-for-a-workflow`);
      return listRuns(req, ctx, runs);
    },
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/actions/runs/{run_id}',
    auth: 'token',
    resource: 'core',
    docs: `${RUNS_DOCS}#get-a-workflow-run`,
    handler: (req, ctx) => {
      const run = findRun(req, ctx);
      return run ? json(workflowRun(ctx.api, ctx.model, run)) : notFound(`${RUNS_DOCS}#get-a-workflow-run`);
    },
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}',
    auth: 'token',
    resource: 'core',
    docs: `${RUNS_DOCS}#get-a-workflow-run-attempt`,
    handler: (req, ctx) => {
      const run = findRun(req, ctx);
      const n = intParam(req, 'attempt_number');
      if (!run || n === null || !run.attempt(n)) return notFound(`${RUNS_DOCS}#get-a-workflow-run-attempt`);
      return json(workflowRun(ctx.api, ctx.model, run, n));
    },
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs',
    auth: 'token',
    resource: 'core',
    docs: `${JOBS_DOCS}#list-jobs-for-a-workflow-run-attempt`,
    handler: (req, ctx) => {
      const run = findRun(req, ctx);
      const n = intParam(req, 'attempt_number');
      const attempt = run && n !== null ? run.attempt(n) : undefined;
      if (!run || !attempt) return notFound(`${JOBS_DOCS}#list-jobs-for-a-workflow-run-attempt`);
      const { page, headers } = paginate(attempt.jobs, req, ctx);
      const jobs = page.map((j) => workflowJob(ctx.api, ctx.model, run, j));
      return conditionalJson(req, ctx, { total_count: attempt.jobs.length, jobs }, headers);
    },
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
    auth: 'token',
    resource: 'core',
    docs: `${JOBS_DOCS}#list-jobs-for-a-workflow-run`,
    handler: (req, ctx) => {
      const run = findRun(req, ctx);
      if (!run) return notFound(`${JOBS_DOCS}#list-jobs-for-a-workflow-run`);
      const all = new Map<number, SimJob>();
      const attempts = req.query.filter === 'all' ? run.attempts : [run.latest];
      for (const a of attempts) for (const j of a.jobs) all.set(j.id, j);
      const list = [...all.values()];
      const { page, headers } = paginate(list, req, ctx);
      const jobs = page.map((j) => workflowJob(ctx.api, ctx.model, run, j));
      return conditionalJson(req, ctx, { total_count: list.length, jobs }, headers);
    },
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/actions/jobs/{job_id}',
    auth: 'token',
    resource: 'core',
    docs: `${JOBS_DOCS}#get-a-job-for-a-workflow-run`,
    handler: (req, ctx) => {
      const found = findJob(req, ctx);
      if (!found) return notFound(`${JOBS_DOCS}#get-a-job-for-a-workflow-run`);
      return json(workflowJob(ctx.api, ctx.model, found.run, found.job));
    },
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
    auth: 'token',
    resource: 'core',
    docs: `${RUNS_DOCS}#re-run-failed-jobs-from-a-workflow-run`,
    handler: (req, ctx) => {
      const docs = `${RUNS_DOCS}#re-run-failed-jobs-from-a-workflow-run`;
      const run = findRun(req, ctx);
      return run ? rerunAnswer(rerunFailedJobs(ctx.model, run), docs) : notFound(docs);
    },
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun',
    auth: 'token',
    resource: 'core',
    docs: `${RUNS_DOCS}#re-run-a-workflow`,
    handler: (req, ctx) => {
      const run = findRun(req, ctx);
      const docs = `${RUNS_DOCS}#re-run-a-workflow`;
      return run ? rerunAnswer(rerunRun(ctx.model, run), docs) : notFound(docs);
    },
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/actions/jobs/{job_id}/rerun',
    auth: 'token',
    resource: 'core',
    docs: `${RUNS_DOCS}#re-run-a-job-from-a-workflow-run`,
    handler: (req, ctx) => {
      const found = findJob(req, ctx);
      const docs = `${RUNS_DOCS}#re-run-a-job-from-a-workflow-run`;
      return found ? rerunAnswer(rerunJob(ctx.model, found.run, found.job.id), docs) : notFound(docs);
    },
  },
];
