import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator, fakeJwt, simRoutes, type SimRun } from './index.js';
import { OpenApiResponses, SPEC_PATH } from './openapi.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';

const REPO = 'acme/widgets';
const LOST = TEXT.selfHostedNamed('ghr-i-0abc123def4567890');

let sim: GitHubSimulator;
let spec: OpenApiResponses;
let token: string;
let failed: SimRun;
let history: SimRun;
let running: SimRun;
const reruns: Record<'failed' | 'all' | 'job', SimRun> = {} as Record<'failed' | 'all' | 'job', SimRun>;
const cancels: Record<'cancel' | 'force', SimRun> = {} as Record<'cancel' | 'force', SimRun>;
let deliveryId: number;

interface Row {
  name: string;
  method: string;
  template: string;
  status: number;
  /** Performs the request; the path is relative to the simulator. */
  call: () => Promise<Response>;
}

function api(method: string, path: string, opts: { auth?: 'token' | 'jwt' | 'none' | string; body?: unknown } = {}) {
  const headers: Record<string, string> = { accept: 'application/vnd.github+json' };
  const auth = opts.auth ?? 'token';
  if (auth === 'token') headers.authorization = `token ${token}`;
  else if (auth === 'jwt') headers.authorization = `Bearer ${fakeJwt()}`;
  else if (auth !== 'none') headers.authorization = auth;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return fetch(`${sim.url}${path}`, { method, headers, body, redirect: 'manual' });
}

const r = (
  name: string,
  method: string,
  template: string,
  status: number,
  path: () => string,
  opts?: Parameters<typeof api>[2],
): Row => ({ name, method, template, status, call: () => api(method, path(), opts) });

const runPath = (run: () => SimRun) => () => `/repos/${REPO}/actions/runs/${run().id}`;
const jobOf = (run: SimRun, name: string) => run.jobs.find((j) => j.name === name)?.id ?? 0;

const rows: Row[] = [
  r(
    'installation token',
    'POST',
    '/app/installations/{installation_id}/access_tokens',
    201,
    () => '/app/installations/7/access_tokens',
    { auth: 'jwt' },
  ),
  r(
    'installation token, unknown installation',
    'POST',
    '/app/installations/{installation_id}/access_tokens',
    404,
    () => '/app/installations/999/access_tokens',
    { auth: 'jwt' },
  ),
  r(
    'installation token, not a JWT',
    'POST',
    '/app/installations/{installation_id}/access_tokens',
    401,
    () => '/app/installations/7/access_tokens',
    { auth: 'Bearer nope' },
  ),
  r(
    'workflow run',
    'GET',
    '/repos/{owner}/{repo}/actions/runs/{run_id}',
    200,
    runPath(() => failed),
  ),
  r(
    'workflow run attempt',
    'GET',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}',
    200,
    () => `${runPath(() => failed)()}/attempts/1`,
  ),
  r(
    'a re-run attempt a bot started, in a seeded history',
    'GET',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}',
    200,
    () => `${runPath(() => history)()}/attempts/2`,
  ),
  r(
    'runs created in a period, one page',
    'GET',
    '/repos/{owner}/{repo}/actions/runs',
    200,
    () => `/repos/${REPO}/actions/runs?created=%3E%3D2026-01-01&per_page=1`,
  ),
  r('repositories of the installation', 'GET', '/installation/repositories', 200, () => '/installation/repositories'),
  r(
    'jobs of an attempt',
    'GET',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs',
    200,
    () => `${runPath(() => failed)()}/attempts/2/jobs?per_page=2`,
  ),
  r(
    'jobs of an unknown attempt',
    'GET',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs',
    404,
    () => `${runPath(() => failed)()}/attempts/9/jobs`,
  ),
  r(
    'jobs of a run',
    'GET',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
    200,
    () => `${runPath(() => running)()}/jobs?filter=all`,
  ),
  r(
    'one job',
    'GET',
    '/repos/{owner}/{repo}/actions/jobs/{job_id}',
    200,
    () => `/repos/${REPO}/actions/jobs/${jobOf(running, 'test')}`,
  ),
  r(
    'annotations',
    'GET',
    '/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations',
    200,
    () => `/repos/${REPO}/check-runs/${jobOf(failed, 'test')}/annotations`,
  ),
  r(
    'check run of a job',
    'GET',
    '/repos/{owner}/{repo}/check-runs/{check_run_id}',
    200,
    () => `/repos/${REPO}/check-runs/${jobOf(failed, 'test')}`,
  ),
  r(
    're-run failed jobs',
    'POST',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
    201,
    () => `${runPath(() => reruns.failed)()}/rerun-failed-jobs`,
  ),
  r(
    're-run a run',
    'POST',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun',
    201,
    () => `${runPath(() => reruns.all)()}/rerun`,
  ),
  r(
    'cancel a running run',
    'POST',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/cancel',
    202,
    () => `${runPath(() => cancels.cancel)()}/cancel`,
  ),
  r(
    'force-cancel a running run',
    'POST',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/force-cancel',
    202,
    () => `${runPath(() => cancels.force)()}/force-cancel`,
  ),
  r(
    'force-cancel a completed run',
    'POST',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/force-cancel',
    409,
    () => `${runPath(() => failed)()}/force-cancel`,
  ),
  r(
    're-run a job',
    'POST',
    '/repos/{owner}/{repo}/actions/jobs/{job_id}/rerun',
    201,
    () => `/repos/${REPO}/actions/jobs/${jobOf(reruns.job, 'test')}/rerun`,
  ),
  r(
    're-run a job of a running run',
    'POST',
    '/repos/{owner}/{repo}/actions/jobs/{job_id}/rerun',
    403,
    () => `/repos/${REPO}/actions/jobs/${jobOf(running, 'test')}/rerun`,
  ),
  r(
    'runs of a repository',
    'GET',
    '/repos/{owner}/{repo}/actions/runs',
    200,
    () => `/repos/${REPO}/actions/runs?head_sha=${failed.headSha}&per_page=5`,
  ),
  r(
    'runs of a workflow',
    'GET',
    '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
    200,
    () => `/repos/${REPO}/actions/workflows/ci.yml/runs?branch=feature/x`,
  ),
  r('pull request', 'GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 200, () => `/repos/${REPO}/pulls/17`),
  r('unknown pull request', 'GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 404, () => `/repos/${REPO}/pulls/404`),
  r(
    'file contents',
    'GET',
    '/repos/{owner}/{repo}/contents/{path}',
    200,
    () => `/repos/${REPO}/contents/.github/reprise.yml`,
  ),
  r(
    'missing file',
    'GET',
    '/repos/{owner}/{repo}/contents/{path}',
    404,
    () => `/repos/${REPO}/contents/.github/absent.yml`,
  ),
  r('create check run', 'POST', '/repos/{owner}/{repo}/check-runs', 201, () => `/repos/${REPO}/check-runs`, {
    body: { name: 'reprise', head_sha: 'a'.repeat(40), status: 'in_progress' },
  }),
  r(
    'update check run',
    'PATCH',
    '/repos/{owner}/{repo}/check-runs/{check_run_id}',
    200,
    () => `/repos/${REPO}/check-runs/${sim.checkRuns[0]?.id ?? 0}`,
    { body: { conclusion: 'neutral', output: { title: 'Retried', summary: 'lost runner' } } },
  ),
  r('rate limit', 'GET', '/rate_limit', 200, () => '/rate_limit'),
  r('webhook config', 'GET', '/app/hook/config', 200, () => '/app/hook/config', { auth: 'jwt' }),
  r('webhook deliveries', 'GET', '/app/hook/deliveries', 200, () => '/app/hook/deliveries?per_page=2', { auth: 'jwt' }),
  r('webhook deliveries, bad cursor', 'GET', '/app/hook/deliveries', 400, () => '/app/hook/deliveries?cursor=zzz', {
    auth: 'jwt',
  }),
  r(
    'redeliver',
    'POST',
    '/app/hook/deliveries/{delivery_id}/attempts',
    202,
    () => `/app/hook/deliveries/${deliveryId}/attempts`,
    { auth: 'jwt' },
  ),
  r('installations', 'GET', '/app/installations', 200, () => '/app/installations', { auth: 'jwt' }),
  r('repository installation', 'GET', '/repos/{owner}/{repo}/installation', 200, () => `/repos/${REPO}/installation`, {
    auth: 'jwt',
  }),
  r('the app', 'GET', '/app', 200, () => '/app', { auth: 'jwt' }),
  r(
    'manifest conversion',
    'POST',
    '/app-manifests/{code}/conversions',
    201,
    () => '/app-manifests/code-1/conversions',
    { auth: 'none' },
  ),
  r(
    'manifest conversion, used code',
    'POST',
    '/app-manifests/{code}/conversions',
    404,
    () => '/app-manifests/code-1/conversions',
    { auth: 'none' },
  ),
];

/** Answers GitHub documents without a JSON body: status and headers only. */
const bodiless: Row[] = [
  r(
    'job log redirect',
    'GET',
    '/repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
    302,
    () => `/repos/${REPO}/actions/jobs/${jobOf(failed, 'test')}/logs`,
  ),
];

/** Error answers the description leaves undocumented; they must still have the shape of GitHub's errors. */
const undocumented: Row[] = [
  r('unknown run', 'GET', '/repos/{owner}/{repo}/actions/runs/{run_id}', 404, () => `/repos/${REPO}/actions/runs/1`),
  r(
    're-run a running run',
    'POST',
    '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
    403,
    () => `${runPath(() => running)()}/rerun-failed-jobs`,
  ),
  r(
    'unknown token',
    'GET',
    '/repos/{owner}/{repo}/actions/runs/{run_id}',
    401,
    runPath(() => failed),
    { auth: 'token ghs_unknown' },
  ),
];

beforeAll(async () => {
  expect(existsSync(SPEC_PATH)).toBe(true);
  spec = new OpenApiResponses();
  sim = await GitHubSimulator.start();
  sim.addInstallation({ id: 7, account: 'acme' });
  token = sim.issueToken(7);
  const jobs = [
    { name: 'build', conclusion: 'success' as const },
    {
      name: 'test',
      conclusion: 'failure' as const,
      runnerName: 'ghr-i-0abc123def4567890',
      runnerGroup: 'spot runners',
      annotations: [failureAnnotation(LOST)],
    },
    { name: 'deploy', conclusion: 'skipped' as const, needs: ['test'] },
  ];
  failed = sim.addRun({
    repo: REPO,
    event: 'pull_request',
    headBranch: 'feature/x',
    pullRequests: [17],
    runAttempt: 2,
    jobs,
  });
  running = sim.addRun({
    repo: REPO,
    jobs: [
      { name: 'build', conclusion: 'success' },
      { name: 'test', conclusion: null },
    ],
  });
  history = sim.addRunHistory({
    repo: REPO,
    attempts: [
      { jobs, startedAt: '2026-01-05T10:00:00Z', completedAt: '2026-01-05T10:09:00Z' },
      {
        jobs: [{ name: 'test', conclusion: 'success' }],
        actor: { login: 'renovate[bot]', type: 'Bot' },
        startedAt: '2026-01-05T10:40:00Z',
        completedAt: '2026-01-05T10:48:00Z',
      },
    ],
  });
  const open = [{ name: 'test', conclusion: null, status: 'in_progress' as const, runnerName: 'ghr-live' }];
  cancels.cancel = sim.addRun({ repo: REPO, jobs: open });
  cancels.force = sim.addRun({ repo: REPO, jobs: open });
  reruns.failed = sim.addRun({ repo: REPO, jobs });
  reruns.all = sim.addRun({ repo: REPO, jobs });
  reruns.job = sim.addRun({ repo: REPO, jobs });
  sim.setRepoFile(REPO, '.github/reprise.yml', 'dryRun: false\n');
  for (const [i, code] of [200, 502, 200].entries()) {
    deliveryId = sim.addDelivery({
      guid: `guid-${i}`,
      event: 'workflow_run',
      action: 'completed',
      statusCode: code,
      installationId: 7,
    }).id;
  }
  sim.addManifestCode('code-1', { id: 99, slug: 'reprise-test', pem: 'PEM', webhookSecret: 'whsec' });
}, 30_000);

afterAll(async () => {
  await sim?.close();
});

describe("simulator responses validate against GitHub's OpenAPI description", () => {
  it.each(rows)('$method $template $status ($name)', async (row) => {
    const res = await row.call();
    expect(res.status).toBe(row.status);
    const body: unknown = await res.json();
    expect(spec.check(row.method, row.template, row.status, body)).toEqual([]);
  });

  it.each(bodiless)('$method $template $status ($name)', async (row) => {
    const res = await row.call();
    expect(res.status).toBe(row.status);
    expect(res.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_logs\/\d+\?sig=\w+&exp=\d+$/);
  });

  it.each(undocumented)('$method $template $status ($name) has the basic-error shape', async (row) => {
    const res = await row.call();
    expect(res.status).toBe(row.status);
    // The 404 of "get a pull request" is GitHub's basic-error schema.
    expect(spec.check('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 404, await res.json())).toEqual([]);
  });

  it('rejects a deliberately broken body, so the rows above can fail', async () => {
    const res = await api('GET', runPath(() => failed)());
    const body = (await res.json()) as Record<string, unknown>;
    const template = '/repos/{owner}/{repo}/actions/runs/{run_id}';
    expect(spec.check('GET', template, 200, body)).toEqual([]);
    const broken = { ...body, run_number: 'seven', head_sha: undefined, created_at: 'yesterday' };
    const errors = spec.check('GET', template, 200, JSON.parse(JSON.stringify(broken)));
    expect(errors.join('\n')).toMatch(/head_sha/);
    expect(errors.join('\n')).toMatch(/run_number/);
    expect(errors.join('\n')).toMatch(/created_at/);
  });

  it('covers every JSON route the simulator serves', () => {
    const covered = new Set([...rows, ...bodiless].map((x) => `${x.method} ${x.template}`));
    const served = simRoutes.filter((x) => x.template !== '/graphql' && !x.template.startsWith('/_logs'));
    expect(served.map((x) => `${x.method} ${x.template}`).filter((k) => !covered.has(k))).toEqual([]);
  });

  it('answers GraphQL nodes queries in the shape GitHub does', async () => {
    const ids = [failed.jobs.find((j) => j.name === 'test')?.nodeId, 'CR_kwDOunknown'];
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { ... on CheckRun { databaseId annotations(first: 50) { nodes { annotationLevel title message } } } } }`;
    const res = await fetch(sim.graphqlUrl, {
      method: 'POST',
      headers: { authorization: `bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: { ids } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-resource')).toBe('graphql');
    const body = (await res.json()) as {
      data: { nodes: Array<{ databaseId: number; annotations: { nodes: Array<Record<string, unknown>> } } | null> };
      errors: Array<{ type: string; path: unknown[]; message: string }>;
    };
    expect(body.data.nodes).toHaveLength(2);
    expect(body.data.nodes[0]?.databaseId).toBe(jobOf(failed, 'test'));
    expect(body.data.nodes[0]?.annotations.nodes).toEqual([
      expect.objectContaining({ annotationLevel: 'FAILURE', title: expect.any(String), message: LOST }),
    ]);
    expect(body.data.nodes[1]).toBeNull();
    expect(body.errors).toEqual([expect.objectContaining({ type: 'NOT_FOUND', path: ['nodes', 1] })]);
    expect(body.errors[0]?.message).toContain('CR_kwDOunknown');
  });

  it('answers aliased nodes fields, each under its alias', async () => {
    const id = failed.jobs.find((j) => j.name === 'test')?.nodeId;
    const query = `query($ids0: [ID!]!, $ids1: [ID!]!) { b0: nodes(ids: $ids0) { ...A } b1: nodes(ids: $ids1) { ...A } }
fragment A on CheckRun { databaseId annotations(first: 50) { nodes { annotationLevel title message } } }`;
    const res = await fetch(sim.graphqlUrl, {
      method: 'POST',
      headers: { authorization: `bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: { ids0: [id], ids1: ['CR_kwDOunknown', id] } }),
    });
    const body = (await res.json()) as {
      data: Record<string, Array<{ databaseId: number } | null>>;
      errors: Array<{ path: unknown[] }>;
    };
    expect(body.data.b0?.[0]?.databaseId).toBe(jobOf(failed, 'test'));
    expect(body.data.b1?.[0]).toBeNull();
    expect(body.data.b1?.[1]?.databaseId).toBe(jobOf(failed, 'test'));
    expect(body.errors).toEqual([expect.objectContaining({ path: ['b1', 0] })]);
  });
});
