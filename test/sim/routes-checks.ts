import { fail, intParam, json, notFound, paginate, type Route, type SimContext, type SimRequest } from './http.js';
import { iso, nodeId } from './ids.js';
import { createdCheckRun, jobCheckRun, restAnnotation } from './render-actions.js';
import type { SimCheckRun } from './types.js';

const CHECKS_DOCS = 'https://docs.github.com/rest/checks/runs';
const STATUSES = ['queued', 'in_progress', 'completed'] as const;
const CONCLUSIONS = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'stale', 'timed_out'];

function findCreated(req: SimRequest, ctx: SimContext): SimCheckRun | undefined {
  const id = intParam(req, 'check_run_id');
  const full = `${req.params.owner}/${req.params.repo}`.toLowerCase();
  return ctx.model.checkRuns.find((c) => c.id === id && c.repo.toLowerCase() === full);
}

function findJobCheck(req: SimRequest, ctx: SimContext) {
  const id = intParam(req, 'check_run_id');
  const found = id === null ? undefined : ctx.model.jobs.get(id);
  const full = `${req.params.owner}/${req.params.repo}`.toLowerCase();
  return found && found.run.repo.toLowerCase() === full ? found : undefined;
}

type CheckBody = Partial<{
  name: string;
  head_sha: string;
  status: string;
  conclusion: string;
  details_url: string;
  external_id: string;
  started_at: string;
  completed_at: string;
  output: { title?: string; summary?: string; text?: string };
}>;

/** The longest `output.summary` or `output.text` GitHub takes. */
export const OUTPUT_MAX_CHARS = 65_535;

/** Applies a create/update body; returns a validation message when GitHub would answer 422. */
function apply(c: SimCheckRun, b: CheckBody): string | null {
  if (b.status !== undefined && !(STATUSES as readonly string[]).includes(b.status)) return 'Invalid status';
  if (b.conclusion !== undefined && !CONCLUSIONS.includes(b.conclusion)) return 'Invalid conclusion';
  // GitHub's limits on the output fields (its REST reference: "Maximum length: 65535 characters").
  for (const field of ['summary', 'text'] as const) {
    const value = b.output?.[field];
    if (value !== undefined && value.length > OUTPUT_MAX_CHARS) {
      return `Invalid request.\n\nOnly ${OUTPUT_MAX_CHARS} characters are allowed; ${value.length} were supplied.`;
    }
  }
  if (b.name !== undefined) c.name = b.name;
  if (b.details_url !== undefined) c.detailsUrl = b.details_url;
  if (b.external_id !== undefined) c.externalId = b.external_id;
  if (b.started_at !== undefined) c.startedAt = b.started_at;
  if (b.output) {
    c.output = {
      title: b.output.title ?? c.output.title,
      summary: b.output.summary ?? c.output.summary,
      text: b.output.text ?? c.output.text,
    };
  }
  if (b.status !== undefined) c.status = b.status as SimCheckRun['status'];
  // Giving a conclusion completes the check run, as on GitHub.
  if (b.conclusion !== undefined) {
    c.conclusion = b.conclusion;
    c.status = 'completed';
  }
  if (c.status === 'completed') c.completedAt = b.completed_at ?? c.completedAt ?? iso(Date.now());
  return null;
}

export const checksRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations',
    auth: 'token',
    resource: 'core',
    docs: `${CHECKS_DOCS}#list-check-run-annotations`,
    handler: (req, ctx) => {
      const docs = `${CHECKS_DOCS}#list-check-run-annotations`;
      const found = findJobCheck(req, ctx);
      if (!found) return findCreated(req, ctx) ? json([]) : notFound(docs);
      const a = found.job.annotations;
      if (!Array.isArray(a)) {
        const message =
          a.status === 403 ? 'Resource not accessible by integration' : a.status === 410 ? 'Gone' : 'Not Found';
        return fail(a.status, message, docs);
      }
      const { page, headers } = paginate(a, req, ctx);
      return json(
        page.map((x) => restAnnotation(found.run, x)),
        200,
        headers,
      );
    },
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/check-runs/{check_run_id}',
    auth: 'token',
    resource: 'core',
    docs: `${CHECKS_DOCS}#get-a-check-run`,
    handler: (req, ctx) => {
      const found = findJobCheck(req, ctx);
      if (found) return json(jobCheckRun(ctx.api, found.run, found.job));
      const created = findCreated(req, ctx);
      return created ? json(createdCheckRun(ctx.api, ctx.model, created)) : notFound(`${CHECKS_DOCS}#get-a-check-run`);
    },
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/check-runs',
    auth: 'token',
    resource: 'core',
    docs: `${CHECKS_DOCS}#create-a-check-run`,
    handler: (req, ctx) => {
      const docs = `${CHECKS_DOCS}#create-a-check-run`;
      const repo = ctx.model.findRepo(req.params.owner ?? '', req.params.repo ?? '');
      if (!repo) return notFound(docs);
      const b = (req.body ?? {}) as CheckBody;
      if (!b.name || !b.head_sha) return fail(422, 'Invalid request.\n\n"name" and "head_sha" are required.', docs);
      const id = ctx.model.ids.next('job');
      const c: SimCheckRun = {
        id,
        nodeId: nodeId('CR', repo.id, id),
        repo: repo.fullName,
        checkSuiteId: ctx.model.ids.next('checkSuite'),
        name: b.name,
        headSha: b.head_sha,
        status: 'queued',
        conclusion: null,
        detailsUrl: null,
        externalId: null,
        startedAt: iso(Date.now()),
        completedAt: null,
        output: { title: null, summary: null, text: null },
      };
      const invalid = apply(c, b);
      if (invalid) return fail(422, invalid, docs);
      ctx.model.checkRuns.push(c);
      return json(createdCheckRun(ctx.api, ctx.model, c), 201);
    },
  },
  {
    method: 'PATCH',
    template: '/repos/{owner}/{repo}/check-runs/{check_run_id}',
    auth: 'token',
    resource: 'core',
    docs: `${CHECKS_DOCS}#update-a-check-run`,
    handler: (req, ctx) => {
      const docs = `${CHECKS_DOCS}#update-a-check-run`;
      const c = findCreated(req, ctx);
      if (!c)
        return findJobCheck(req, ctx) ? fail(403, 'Resource not accessible by integration', docs) : notFound(docs);
      const invalid = apply(c, (req.body ?? {}) as CheckBody);
      return invalid ? fail(422, invalid, docs) : json(createdCheckRun(ctx.api, ctx.model, c));
    },
  },
];
