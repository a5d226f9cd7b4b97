import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubSimulator, fakeJwt, type SimJobSpec } from './index.js';
import { lostJob } from '../support/evidence.js';

const REPO = 'acme/widgets';
const TOKEN = 'ghp_simulated_static_token';

let sim: GitHubSimulator;

beforeEach(async () => {
  sim = await GitHubSimulator.start();
  sim.addToken(TOKEN);
  sim.addInstallation({ id: 7, account: 'acme' });
});

afterEach(async () => {
  await sim.close();
});

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  const url = path.startsWith('http') ? path : `${sim.url}${path}`;
  return fetch(url, { headers: { authorization: `token ${TOKEN}`, ...headers }, redirect: 'manual' });
}

function post(path: string, body?: unknown, auth = `token ${TOKEN}`): Promise<Response> {
  return fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function links(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (res.headers.get('link') ?? '').matchAll(/<([^>]+)>; rel="(\w+)"/g)) out[m[2] ?? ''] = m[1] ?? '';
  return out;
}

const lost: SimJobSpec = lostJob('test', 'ghr-i-0abc123def4567890');

type JobsPage = {
  total_count: number;
  jobs: Array<{ id: number; name: string; conclusion: string | null; run_attempt: number }>;
};

describe('pagination', () => {
  it('pages jobs like GitHub, with rel=next/last/prev/first links, 30 by default and 100 at most', async () => {
    const jobs = Array.from({ length: 150 }, (_, i) => ({ name: `shard ${i}`, conclusion: 'success' as const }));
    const run = sim.addRun({ repo: REPO, jobs });
    const base = `/repos/${REPO}/actions/runs/${run.id}/attempts/1/jobs`;
    const first = await get(base);
    expect(((await first.json()) as JobsPage).jobs).toHaveLength(30);
    expect(new URL(links(first).last ?? '').searchParams.get('page')).toBe('5');

    const big = await get(`${base}?per_page=500`);
    const page1 = (await big.json()) as JobsPage;
    expect(page1.total_count).toBe(150);
    expect(page1.jobs).toHaveLength(100);
    const l1 = links(big);
    expect(Object.keys(l1).sort()).toEqual(['last', 'next']);
    const page2res = await get(l1.next ?? '');
    const page2 = (await page2res.json()) as JobsPage;
    expect(page2.jobs.map((j) => j.name)).toEqual(jobs.slice(100).map((j) => j.name));
    expect(Object.keys(links(page2res)).sort()).toEqual(['first', 'prev']);
  });

  it('filters and pages workflow runs, newest first', async () => {
    for (let i = 0; i < 3; i++)
      sim.addRun({ repo: REPO, headSha: 'a'.repeat(40), jobs: [{ name: 'b', conclusion: 'success' }] });
    sim.addRun({ repo: REPO, headSha: 'b'.repeat(40), jobs: [{ name: 'b', conclusion: 'success' }] });
    const res = await get(`/repos/${REPO}/actions/runs?head_sha=${'a'.repeat(40)}&per_page=2`);
    const body = (await res.json()) as { total_count: number; workflow_runs: Array<{ id: number }> };
    expect(body.total_count).toBe(3);
    expect(body.workflow_runs).toHaveLength(2);
    expect(body.workflow_runs[0]!.id).toBeGreaterThan(body.workflow_runs[1]!.id);
    expect(links(res).next).toContain('page=2');
  });

  it('cursor-paginates webhook deliveries through the Link header', async () => {
    for (let i = 0; i < 5; i++)
      sim.addDelivery({ guid: `g${i}`, event: 'workflow_run', action: 'completed', statusCode: i === 2 ? 502 : 200 });
    const seen: string[] = [];
    let next: string | undefined = `${sim.url}/app/hook/deliveries?per_page=2`;
    while (next) {
      const res = await fetch(next, { headers: { authorization: `Bearer ${fakeJwt()}` } });
      seen.push(...((await res.json()) as Array<{ guid: string }>).map((d) => d.guid));
      next = links(res).next;
      if (next) expect(next).toMatch(/cursor=v1_\d+/);
    }
    expect(seen).toEqual(['g4', 'g3', 'g2', 'g1', 'g0']);
    const failures = await fetch(`${sim.url}/app/hook/deliveries?status=failure`, {
      headers: { authorization: `Bearer ${fakeJwt()}` },
    });
    expect(((await failures.json()) as Array<{ guid: string; status: string }>).map((d) => [d.guid, d.status])).toEqual(
      [['g2', 'Invalid HTTP Response: 502']],
    );
  });
});

describe('re-runs', () => {
  const jobs: SimJobSpec[] = [
    { name: 'build', conclusion: 'success' },
    lost,
    { name: 'deploy', conclusion: 'skipped', needs: ['test'] },
  ];

  it('rerun-failed-jobs makes attempt n+1: passed jobs kept as they were, failed jobs and dependents re-run', async () => {
    const run = sim.addRun({ repo: REPO, jobs });
    const before = run.jobs.map((j) => j.id);
    const res = await post(`/repos/${REPO}/actions/runs/${run.id}/rerun-failed-jobs`);
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({});
    expect(run.runAttempt).toBe(2);
    expect(run.status).toBe('completed');
    expect(run.conclusion).toBe('success');
    const page = (await (await get(`/repos/${REPO}/actions/runs/${run.id}/attempts/2/jobs`)).json()) as JobsPage;
    const byName = Object.fromEntries(page.jobs.map((j) => [j.name, j]));
    expect(byName.build).toMatchObject({ id: before[0], run_attempt: 1, conclusion: 'success' });
    expect(byName.test).toMatchObject({ run_attempt: 2, conclusion: 'success' });
    expect(byName.test!.id).not.toBe(before[1]);
    expect(byName.deploy).toMatchObject({ run_attempt: 2, conclusion: 'success' });
    expect(run.jobsOf(1).map((j) => j.conclusion)).toEqual(['success', 'failure', 'skipped']);
    expect(run.job('test')?.runnerName).toMatch(/^ghr-i-[0-9a-f]{17}$/);
    expect(run.job('test')?.runnerName).not.toBe(lost.runnerName);
    expect(sim.reruns).toEqual([
      expect.objectContaining({
        kind: 'failed_jobs',
        runId: run.id,
        attemptBefore: 1,
        jobsRerun: ['test', 'deploy'],
        jobsKept: ['build'],
      }),
    ]);
    const runBody = (await (await get(`/repos/${REPO}/actions/runs/${run.id}`)).json()) as Record<string, unknown>;
    expect(runBody).toMatchObject({ run_attempt: 2, status: 'completed', conclusion: 'success' });
    expect(runBody.previous_attempt_url).toMatch(/\/attempts\/1$/);
  });

  it('refuses while the run is in progress, then accepts once it completes', async () => {
    const run = sim.addRun({
      repo: REPO,
      jobs: [
        { name: 'build', conclusion: 'failure' },
        { name: 'test', conclusion: null },
      ],
    });
    expect(run.status).toBe('in_progress');
    const refused = await post(`/repos/${REPO}/actions/runs/${run.id}/rerun-failed-jobs`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toBe('This workflow is already running');
    run.complete({ test: { conclusion: 'success' } });
    expect(run.conclusion).toBe('failure');
    expect((await post(`/repos/${REPO}/actions/runs/${run.id}/rerun-failed-jobs`)).status).toBe(201);
  });

  it('treats cancelled-only runs as configured, and caps attempts at 50', async () => {
    const cancelled = sim.addRun({ repo: REPO, jobs: [{ name: 'a', conclusion: 'cancelled' }] });
    const res = await post(`/repos/${REPO}/actions/runs/${cancelled.id}/rerun-failed-jobs`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/no failed jobs/i);
    sim.rerunFailedJobsIncludesCancelled = true;
    expect((await post(`/repos/${REPO}/actions/runs/${cancelled.id}/rerun-failed-jobs`)).status).toBe(201);
    const capped = sim.addRun({ repo: REPO, runAttempt: 50, jobs: [lost] });
    expect(capped.attempts).toHaveLength(50);
    expect((await post(`/repos/${REPO}/actions/runs/${capped.id}/rerun-failed-jobs`)).status).toBe(403);
  });

  it('follows onRerun: same failure again, or a per-job override', async () => {
    const same = sim.addRun({ repo: REPO, jobs, onRerun: 'same' });
    await post(`/repos/${REPO}/actions/runs/${same.id}/rerun-failed-jobs`);
    expect(same.conclusion).toBe('failure');
    expect(same.job('test')?.annotations).toEqual(lost.annotations);
    const custom = sim.addRun({
      repo: REPO,
      jobs,
      onRerun: (job, attempt) =>
        job.name === 'test' && attempt === 2 ? { conclusion: 'cancelled', runnerName: 'r2' } : {},
    });
    await post(`/repos/${REPO}/actions/runs/${custom.id}/rerun-failed-jobs`);
    expect(custom.jobs.map((j) => [j.name, j.conclusion, j.runnerName === 'r2'])).toEqual([
      ['build', 'success', false],
      ['test', 'cancelled', true],
      ['deploy', 'success', false],
    ]);
  });

  it('re-runs a whole run or a single job', async () => {
    const run = sim.addRun({ repo: REPO, jobs });
    expect((await post(`/repos/${REPO}/actions/runs/${run.id}/rerun`)).status).toBe(201);
    expect(run.jobs.every((j) => j.runAttempt === 2)).toBe(true);
    const buildId = run.job('build')!.id;
    expect((await post(`/repos/${REPO}/actions/jobs/${buildId}/rerun`)).status).toBe(201);
    expect(run.latest.executed).toEqual(['build']);
    expect(sim.reruns.map((r) => r.kind)).toEqual(['run', 'job']);
    expect(sim.count('POST', /\/rerun$/)).toBe(2);
  });
});

describe('conditional requests', () => {
  it('answers 304 to a matching If-None-Match, free of rate limit, and changes the ETag with the content', async () => {
    sim.setRepoFile(REPO, '.github/reprise.yml', 'dryRun: true\n');
    const path = `/repos/${REPO}/contents/.github/reprise.yml`;
    const first = await get(path);
    const etag = first.headers.get('etag') ?? '';
    const body = (await first.json()) as { content: string; encoding: string; sha: string };
    expect(Buffer.from(body.content, 'base64').toString('utf8')).toBe('dryRun: true\n');
    const remaining = first.headers.get('x-ratelimit-remaining');
    const cached = await get(path, { 'if-none-match': etag });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    expect(cached.headers.get('x-ratelimit-remaining')).toBe(remaining);
    expect(sim.requests.at(-1)).toMatchObject({ method: 'GET', path, status: 304 });
    sim.setRepoFile(REPO, '.github/reprise.yml', 'dryRun: false\n');
    const changed = await get(path, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    sim.setRepoFile(REPO, '.github/reprise.yml', null);
    expect((await get(path)).status).toBe(404);
  });
});

describe('conditional job listings', () => {
  const used = (res: Response) => Number(res.headers.get('x-ratelimit-used'));

  it('a job listing carries a weak ETag of its body; If-None-Match naming it answers 304 with no body, not counted against the rate limit', async () => {
    const run = sim.addRun({ repo: REPO, jobs: [{ name: 'build', conclusion: 'success' }, lost] });
    for (const path of [
      `/repos/${REPO}/actions/runs/${run.id}/jobs?filter=latest`,
      `/repos/${REPO}/actions/runs/${run.id}/attempts/1/jobs`,
    ]) {
      const first = await get(path);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag') ?? '';
      expect(etag).toMatch(/^W\/"[0-9a-f]{64}"$/);
      const body = await first.text();
      const again = await get(path);
      // The same body, the same ETag: it is a hash of what was sent.
      expect([again.headers.get('etag'), await again.text()]).toEqual([etag, body]);
      const usedBefore = used(again);
      const cached = await get(path, { 'if-none-match': etag });
      expect(cached.status).toBe(304);
      expect(await cached.text()).toBe('');
      expect(cached.headers.get('etag')).toBe(etag);
      expect(used(cached)).toBe(usedBefore);
      expect(sim.requests.at(-1)).toMatchObject({ method: 'GET', status: 304 });
      // Another ETag, or none matching, answers in full and counts.
      const other = await get(path, { 'if-none-match': 'W/"0000"' });
      expect([other.status, used(other)]).toEqual([200, usedBefore + 1]);
    }
  });

  it('a listing that changed (a person re-ran the run) answers 200 with the new body and a new ETag, counted', async () => {
    const run = sim.addRun({ repo: REPO, jobs: [{ name: 'build', conclusion: 'success' }, lost] });
    const path = `/repos/${REPO}/actions/runs/${run.id}/jobs?filter=latest`;
    const first = await get(path);
    const etag = first.headers.get('etag') ?? '';
    const usedBefore = used(first);
    expect((await post(`/repos/${REPO}/actions/runs/${run.id}/rerun-failed-jobs`)).status).toBe(201);
    const changed = await get(path, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    const page = (await changed.json()) as JobsPage;
    expect(page.jobs.find((j) => j.name === 'test')).toMatchObject({ run_attempt: 2 });
    // The listing and the re-run POST each counted.
    expect(used(changed)).toBe(usedBefore + 2);
  });

  it('each page has its own ETag: a 304 on the first page says nothing of the second', async () => {
    const jobs = Array.from({ length: 150 }, (_, i) => ({ name: `shard ${i}`, conclusion: 'success' as const }));
    const run = sim.addRun({ repo: REPO, jobs });
    const base = `/repos/${REPO}/actions/runs/${run.id}/jobs?filter=latest&per_page=100`;
    const one = (await get(`${base}&page=1`)).headers.get('etag');
    const two = (await get(`${base}&page=2`)).headers.get('etag');
    expect(one).not.toBe(two);
    expect((await get(`${base}&page=2`, { 'if-none-match': one ?? '' })).status).toBe(200);
  });

  it('as a control, told to ignore If-None-Match, the simulator answers every listing in full and counts it', async () => {
    const run = sim.addRun({ repo: REPO, jobs: [lost] });
    const path = `/repos/${REPO}/actions/runs/${run.id}/jobs?filter=latest`;
    const etag = (await get(path)).headers.get('etag') ?? '';
    sim.honoursIfNoneMatch = false;
    const res = await get(path, { 'if-none-match': etag });
    expect([res.status, res.headers.get('etag')]).toEqual([200, etag]);
  });
});

describe('job logs', () => {
  it('redirects to a signed URL that serves the log, with byte ranges', async () => {
    const log = Array.from({ length: 2000 }, (_, i) => `2026-10-02T16:15:05.0000000Z line ${i}`).join('\n');
    const run = sim.addRun({
      repo: REPO,
      jobs: [
        { ...lost, log },
        { name: 'gone', conclusion: 'failure', log: null },
      ],
    });
    const res = await get(`/repos/${REPO}/actions/jobs/${run.jobs[0]!.id}/logs`);
    expect(res.status).toBe(302);
    const location = res.headers.get('location') ?? '';
    expect(new URL(location).hostname).toBe('127.0.0.1');
    const whole = await fetch(location);
    expect(await whole.text()).toBe(log);
    const tail = await fetch(location, { headers: { range: 'bytes=-20' } });
    expect(tail.status).toBe(206);
    expect(await tail.text()).toBe(log.slice(-20));
    const size = Buffer.byteLength(log);
    expect(tail.headers.get('content-range')).toBe(`bytes ${size - 20}-${size - 1}/${size}`);
    const head = await fetch(location, { headers: { range: 'bytes=0-9' } });
    expect(await head.text()).toBe(log.slice(0, 10));
    expect((await fetch(location, { headers: { range: `bytes=${size + 5}-` } })).status).toBe(416);
    expect(sim.logBytesServed).toBe(size + 20 + 10);
    expect((await fetch(location.replace(/sig=\w+/, 'sig=forged'))).status).toBe(403);
    expect((await get(`/repos/${REPO}/actions/jobs/${run.jobs[1]!.id}/logs`)).status).toBe(404);
  });

  it('puts the configured log host in the redirect', async () => {
    const other = await GitHubSimulator.start({ logHost: 'localhost' });
    other.addToken(TOKEN);
    const run = other.addRun({ repo: REPO, jobs: [lost] });
    const res = await fetch(`${other.url}/repos/${REPO}/actions/jobs/${run.jobs[0]!.id}/logs`, {
      headers: { authorization: `token ${TOKEN}` },
      redirect: 'manual',
    });
    expect(new URL(res.headers.get('location') ?? '').hostname).toBe('localhost');
    await other.close();
  });
});

describe('faults', () => {
  it('applies a fault a number of times, with retry-after, and logs it', async () => {
    const run = sim.addRun({ repo: REPO, jobs: [lost] });
    sim.injectFault({ method: 'GET', path: /\/actions\/runs\/\d+$/, status: 502, times: 2, retryAfter: 3 });
    const path = `/repos/${REPO}/actions/runs/${run.id}`;
    const a = await get(path);
    expect(a.status).toBe(502);
    expect(a.headers.get('retry-after')).toBe('3');
    expect(await a.json()).toMatchObject({ message: expect.any(String), documentation_url: expect.any(String) });
    expect((await get(path)).status).toBe(502);
    expect((await get(path)).status).toBe(200);
    expect(sim.requests.map((r) => r.status)).toEqual([502, 502, 200]);
  });

  it('marks rate-limit faults with x-ratelimit-remaining 0 and a reset time', async () => {
    sim.injectFault({
      path: /^\/rate_limit$/,
      status: 403,
      times: 1,
      message: 'API rate limit exceeded for installation ID 7.',
      resetAfter: 60,
    });
    const res = await get('/rate_limit');
    expect(res.status).toBe(403);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('draws rate faults from a seeded generator, so runs repeat', async () => {
    const pattern = async (): Promise<number[]> => {
      sim.clearFaults();
      sim.setSeed(42);
      sim.injectFault({ path: /^\/graphql$/, status: 500, rate: 0.5 });
      const out: number[] = [];
      for (let i = 0; i < 12; i++) {
        out.push((await post('/graphql', { query: '{ nodes(ids: $ids) { id } }', variables: { ids: [] } })).status);
      }
      return out;
    };
    const first = await pattern();
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await pattern()).toEqual(first);
    sim.clearFaults();
    expect((await post('/graphql', { query: '{ nodes(ids: $ids) { id } }', variables: { ids: [] } })).status).toBe(200);
  });

  it('waits latencyMs before answering', async () => {
    sim.latencyMs = 60;
    const t0 = Date.now();
    await get('/rate_limit');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(55);
  });
});

describe('auth', () => {
  it('exchanges a JWT for an installation token that works on REST and GraphQL', async () => {
    const run = sim.addRun({ repo: REPO, jobs: [lost] });
    expect((await post('/app/installations/7/access_tokens', undefined, 'Bearer not-a-jwt')).status).toBe(401);
    expect((await post('/app/installations/8/access_tokens', undefined, `Bearer ${fakeJwt()}`)).status).toBe(404);
    const res = await post('/app/installations/7/access_tokens', undefined, `Bearer ${fakeJwt()}`);
    expect(res.status).toBe(201);
    const { token, expires_at } = (await res.json()) as { token: string; expires_at: string };
    expect(token).toMatch(/^ghs_/);
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());
    const auth = { authorization: `Bearer ${token}` };
    expect((await get(`/repos/${REPO}/actions/runs/${run.id}`, auth)).status).toBe(200);
    const gql = await fetch(sim.graphqlUrl, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        query: 'query($ids:[ID!]!){ nodes(ids: $ids) { id } }',
        variables: { ids: [run.jobs[0]!.nodeId] },
      }),
    });
    expect(gql.status).toBe(200);
    // An installation only sees its own account's repositories.
    sim.addRun({ repo: 'other/repo', id: 5, jobs: [lost] });
    expect((await get('/repos/other/repo/actions/runs/5', auth)).status).toBe(404);
    sim.expireTokens();
    expect((await get(`/repos/${REPO}/actions/runs/${run.id}`, auth)).status).toBe(401);
  });

  it('answers 401 Bad credentials to unknown tokens and to a JWT on repository routes', async () => {
    const run = sim.addRun({ repo: REPO, jobs: [lost] });
    const bad = await get(`/repos/${REPO}/actions/runs/${run.id}`, { authorization: 'token ghs_unknown' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({
      message: 'Bad credentials',
      documentation_url: expect.stringMatching(/^https:/),
    });
    expect((await get(`/repos/${REPO}/actions/runs/${run.id}`, { authorization: `Bearer ${fakeJwt()}` })).status).toBe(
      401,
    );
    expect((await fetch(`${sim.url}/repos/${REPO}/actions/runs/${run.id}`)).status).toBe(401);
    expect((await fetch(`${sim.url}/app`, { headers: { authorization: `token ${TOKEN}` } })).status).toBe(401);
    expect(sim.requests.map((r) => r.status)).toEqual([401, 401, 401, 401]);
  });

  it('converts a manifest code once only', async () => {
    sim.addManifestCode('abc', { id: 321, slug: 'reprise-dev', pem: 'PEM', webhookSecret: 'shh' });
    const first = await post('/app-manifests/abc/conversions', {}, '');
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ id: 321, slug: 'reprise-dev', pem: 'PEM', webhook_secret: 'shh' });
    expect((await post('/app-manifests/abc/conversions', {}, '')).status).toBe(404);
  });
});

describe('model details', () => {
  it('serves configured annotation errors on REST and GraphQL', async () => {
    const run = sim.addRun({ repo: REPO, jobs: [{ ...lost, annotations: { status: 403 } }] });
    const job = run.jobs[0]!;
    expect((await get(`/repos/${REPO}/check-runs/${job.id}/annotations`)).status).toBe(403);
    const res = await post('/graphql', {
      query: 'query($ids:[ID!]!){ nodes(ids: $ids) { id } }',
      variables: { ids: [job.nodeId] },
    });
    const body = (await res.json()) as { data: { nodes: unknown[] }; errors: Array<{ type: string }> };
    expect(body.data.nodes).toEqual([null]);
    expect(body.errors[0]?.type).toBe('FORBIDDEN');
  });

  it('counts requests against the rate limit and refuses when it is spent', async () => {
    const a = await get(`/repos/${REPO}/pulls/1`);
    const b = await get(`/repos/${REPO}/pulls/1`);
    expect(Number(b.headers.get('x-ratelimit-remaining'))).toBe(Number(a.headers.get('x-ratelimit-remaining')) - 1);
    expect(b.headers.get('x-ratelimit-resource')).toBe('core');
    sim.setRateLimit('core', 10, 10);
    const spent = await get(`/repos/${REPO}/pulls/1`);
    expect(spent.status).toBe(403);
    expect(((await spent.json()) as { message: string }).message).toMatch(/rate limit/);
  });

  it('answers unknown routes with a JSON 404 and records redeliveries', async () => {
    const res = await get('/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ message: 'Not Found' });
    const d = sim.addDelivery({ guid: 'g', event: 'workflow_run', action: 'completed', statusCode: 502 });
    sim.onRedeliver = (x) => (x.guid === 'g' ? 202 : 500);
    expect((await post(`/app/hook/deliveries/${d.id}/attempts`, undefined, `Bearer ${fakeJwt()}`)).status).toBe(202);
    expect(sim.deliveries.at(-1)).toMatchObject({ guid: 'g', redelivery: true, statusCode: 202 });
  });
});
