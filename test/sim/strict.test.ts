import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { annotationsQuery } from '../../lib/github/annotations.js';
import { GitHubSimulator, fakeJwt, SECONDARY_MESSAGE, signAppJwt, type SimJobSpec } from './index.js';
import { lostAnnotation } from '../support/evidence.js';

const REPO = 'acme/widgets';
const INSTALLATION = 7;
const APP_ID = 1_234_567;

let sim: GitHubSimulator;

beforeEach(async () => {
  sim = await GitHubSimulator.start();
  sim.addInstallation({ id: INSTALLATION, account: 'acme' });
});

afterEach(async () => {
  await sim.close();
});

const now = (): number => Math.floor(Date.now() / 1000);

function call(method: string, path: string, auth: string, body?: unknown): Promise<Response> {
  return fetch(`${sim.url}${path}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
}

async function refusal(res: Response): Promise<[number, string]> {
  return [res.status, ((await res.json()) as { message: string }).message];
}

/** An installation token, asked for as the App does (optionally with fewer permissions). */
async function token(permissions?: Record<string, string>): Promise<string> {
  const res = await call(
    'POST',
    `/app/installations/${INSTALLATION}/access_tokens`,
    `Bearer ${fakeJwt()}`,
    permissions && { permissions },
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

describe('App JWTs are verified as GitHub verifies them', () => {
  const otherKey = (): string =>
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const appCall = (jwt: string) => call('GET', '/app', `Bearer ${jwt}`);

  it('accepts a JWT signed with the App key, naming the App by id or by client id', async () => {
    expect((await appCall(fakeJwt())).status).toBe(200);
    const byClientId = signAppJwt({ iat: now() - 30, exp: now() + 540, iss: sim.app.clientId });
    expect((await appCall(byClientId)).status).toBe(200);
  });

  it.each([
    ['a wrong issuer', () => signAppJwt({ iat: now() - 30, exp: now() + 540, iss: '999' }), /'Issuer' claim/],
    [
      'a 27-hour expiry',
      () => signAppJwt({ iat: now() - 30, exp: now() + 27 * 3600, iss: String(APP_ID) }),
      /too far in the future/,
    ],
    [
      'a wrong issuer and a 27-hour expiry',
      () => signAppJwt({ iat: now() - 30, exp: now() + 27 * 3600, iss: '42' }),
      /'Issuer' claim/,
    ],
    [
      'a signature by another key',
      () => signAppJwt({ iat: now() - 30, exp: now() + 540, iss: String(APP_ID) }, otherKey()),
      /could not be decoded/,
    ],
    [
      'claims changed after signing',
      () => {
        const [h, , s] = fakeJwt().split('.');
        const claims = Buffer.from(JSON.stringify({ iat: now() - 30, exp: now() + 86_400, iss: String(APP_ID) }));
        return `${h}.${claims.toString('base64url')}.${s}`;
      },
      /could not be decoded/,
    ],
    [
      'no signature at all (the old unsigned form)',
      () => `${fakeJwt().split('.').slice(0, 2).join('.')}.c2ln`,
      /decoded/,
    ],
    [
      'alg none',
      () => {
        const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
        return `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ iat: now() - 30, exp: now() + 540, iss: String(APP_ID) })}.c2ln`;
      },
      /decoded/,
    ],
    ['an expiry in the past', () => signAppJwt({ iat: now() - 700, exp: now() - 100, iss: String(APP_ID) }), /'exp'/],
    [
      'an issue time in the future',
      () => signAppJwt({ iat: now() + 300, exp: now() + 600, iss: String(APP_ID) }),
      /'Issued at' claim/,
    ],
  ])('refuses %s with 401', async (_what, jwt, message) => {
    const [status, text] = await refusal(await appCall(jwt()));
    expect(status).toBe(401);
    expect(text).toMatch(message);
    // The token exchange is refused the same way.
    const exchange = await call('POST', `/app/installations/${INSTALLATION}/access_tokens`, `Bearer ${jwt()}`);
    expect(exchange.status).toBe(401);
  });
});

describe('installation tokens carry their permissions, and each endpoint checks them', () => {
  const lost: SimJobSpec = { name: 't', conclusion: 'failure', annotations: [lostAnnotation('r')] };

  it('a token limited to actions: read reads runs but cannot re-run, read files or annotations', async () => {
    const run = sim.addRun({ repo: REPO, jobs: [lost] });
    sim.setRepoFile(REPO, '.github/reprise.yml', 'enabled: true\n');
    const auth = `token ${await token({ actions: 'read' })}`;
    expect((await call('GET', `/repos/${REPO}/actions/runs/${run.id}`, auth)).status).toBe(200);
    expect((await call('GET', `/repos/${REPO}/actions/runs/${run.id}/jobs`, auth)).status).toBe(200);
    for (const [method, path] of [
      ['POST', `/repos/${REPO}/actions/runs/${run.id}/rerun-failed-jobs`],
      ['POST', `/repos/${REPO}/actions/jobs/${run.jobs[0]!.id}/rerun`],
      ['GET', `/repos/${REPO}/contents/.github%2Freprise.yml`],
      ['GET', `/repos/${REPO}/check-runs/${run.jobs[0]!.id}/annotations`],
      ['GET', `/repos/${REPO}/pulls/1`],
    ] as const) {
      expect(await refusal(await call(method, path, auth))).toEqual([403, 'Resource not accessible by integration']);
    }
    expect(sim.reruns).toHaveLength(0);
  });

  it("the App's own permissions bound every token: asking for more is refused 422", async () => {
    const res = await call('POST', `/app/installations/${INSTALLATION}/access_tokens`, `Bearer ${fakeJwt()}`, {
      permissions: { administration: 'write' },
    });
    expect(res.status).toBe(422);
    const wider = await call('POST', `/app/installations/${INSTALLATION}/access_tokens`, `Bearer ${fakeJwt()}`, {
      permissions: { contents: 'write' },
    });
    expect(wider.status).toBe(422);
  });

  it('an installation granted checks: read cannot create a check run; one without checks cannot read annotations', async () => {
    sim.addInstallation({
      id: 8,
      account: 'umbrella',
      permissions: { actions: 'write', checks: 'read', contents: 'read', metadata: 'read' },
    });
    const run = sim.addRun({ repo: 'umbrella/app', jobs: [lost] });
    const res = await call('POST', '/app/installations/8/access_tokens', `Bearer ${fakeJwt()}`);
    const readOnly = `token ${((await res.json()) as { token: string }).token}`;
    const create = await call('POST', '/repos/umbrella/app/check-runs', readOnly, {
      name: 'reprise',
      head_sha: run.headSha,
    });
    expect(await refusal(create)).toEqual([403, 'Resource not accessible by integration']);
    expect((await call('GET', `/repos/umbrella/app/check-runs/${run.jobs[0]!.id}/annotations`, readOnly)).status).toBe(
      200,
    );

    const noChecks = `token ${await token({ actions: 'write', metadata: 'read' })}`;
    const mine = sim.addRun({ repo: REPO, jobs: [lost] });
    const gql = await call('POST', '/graphql', noChecks, {
      query: annotationsQuery(1),
      variables: { ids0: [mine.jobs[0]!.nodeId] },
    });
    const body = (await gql.json()) as { data: { b0: unknown[] }; errors: { type: string; message: string }[] };
    expect(body.data.b0).toEqual([null]);
    expect(body.errors[0]).toMatchObject({ type: 'FORBIDDEN', message: 'Resource not accessible by integration' });
  });
});

describe("GraphQL queries are validated against GitHub's schema and priced by its rule", () => {
  const gql = async (auth: string, query: string, variables: Record<string, unknown> = {}) => {
    const res = await call('POST', '/graphql', auth, { query, variables });
    return {
      res,
      body: (await res.json()) as { data?: Record<string, unknown>; errors?: { message: string }[] },
      used: Number(res.headers.get('x-ratelimit-used')),
    };
  };

  it("reprise's own annotations query is valid", async () => {
    const auth = `token ${await token()}`;
    const run = sim.addRun({
      repo: REPO,
      jobs: [{ name: 't', conclusion: 'failure', annotations: [lostAnnotation('r')] }],
    });
    const { body } = await gql(auth, annotationsQuery(5), {
      ids0: [run.jobs[0]!.nodeId],
      ids1: [],
      ids2: [],
      ids3: [],
      ids4: [],
    });
    expect(body.errors).toBeUndefined();
    expect((body.data?.b0 as { databaseId: number }[])[0]?.databaseId).toBe(run.jobs[0]!.id);
  });

  it.each([
    [
      'an unknown field',
      'query($ids:[ID!]!){ nodes(ids: $ids) { ... on CheckRun { logUrl } } }',
      /Field 'logUrl' doesn't exist on type 'CheckRun'/,
    ],
    [
      'a field of the wrong type',
      'query($ids:[ID!]!){ nodes(ids: $ids) { databaseId } }',
      /Field 'databaseId' doesn't exist on type 'Node'/,
    ],
    [
      'an unknown argument',
      'query($ids:[ID!]!){ nodes(ids: $ids, first: 5) { id } }',
      /doesn't accept argument 'first'/,
    ],
    ['a missing required argument', '{ nodes { id } }', /missing required arguments: ids/],
    [
      'an undeclared variable',
      '{ nodes(ids: $ids) { id } }',
      /Variable \$ids is used by anonymous query but not declared/,
    ],
    [
      'a connection without selections',
      'query($ids:[ID!]!){ nodes(ids: $ids) { ... on CheckRun { annotations(first: 5) } } }',
      /Field must have selections/,
    ],
    [
      'a selection on a scalar',
      'query($ids:[ID!]!){ nodes(ids: $ids) { id { x } } }',
      /Selections can't be made on scalars/,
    ],
    ['a syntax error', 'query($ids:[ID!]!){ nodes(ids: $ids) { id }', /Parse error/],
    [
      'an unknown fragment type',
      'query($ids:[ID!]!){ nodes(ids: $ids) { ...F } } fragment F on Job { id }',
      /No such type Job/,
    ],
    [
      'a mutation the simulator does not serve',
      'mutation { rerequestCheckSuite(input: {}) { clientMutationId } }',
      /Field 'rerequestCheckSuite' doesn't exist on type 'Mutation'/,
    ],
    ['a subscription', 'subscription { x }', /not configured for subscriptions/],
    [
      'an argument of the wrong type (caught by the whole published schema)',
      'query($ids:[ID!]!){ nodes(ids: $ids) { ... on CheckRun { annotations(first: "x") { nodes { message } } } } }',
      /Int cannot represent non-integer value/,
    ],
  ])('refuses %s', async (_what, query, message) => {
    const { res, body } = await gql(`token ${await token()}`, query, { ids: [] });
    expect(res.status).toBe(200);
    expect(body.data).toBeUndefined();
    expect(body.errors?.map((e) => e.message).join('\n')).toMatch(message);
  });

  it('charges the documented points: connections fulfilled, divided by 100, at least 1', async () => {
    const auth = `token ${await token()}`;
    const jobs: SimJobSpec[] = Array.from({ length: 100 }, (_, i) => ({ name: `j${i}`, conclusion: 'failure' }));
    const runs = Array.from({ length: 5 }, () => sim.addRun({ repo: REPO, jobs }));
    const ids = runs.map((r) => r.jobs.map((j) => j.nodeId));
    const withRate = (q: string) => q.replace(/\n}\nfragment/, '\n  rateLimit { cost remaining used }\n}\nfragment');

    // One job: one annotations connection → 1 request → 1 point (the minimum).
    const one = await gql(auth, withRate(annotationsQuery(1)), { ids0: ids[0]!.slice(0, 1) });
    expect(one.body.errors).toBeUndefined();
    expect((one.body.data?.rateLimit as { cost: number }).cost).toBe(1);

    // 5 fields × 100 check runs, each with its own annotations connection: 500 requests → 5 points.
    const five = await gql(auth, withRate(annotationsQuery(5)), Object.fromEntries(ids.map((x, i) => [`ids${i}`, x])));
    expect((five.body.data?.rateLimit as { cost: number }).cost).toBe(5);
    expect(five.used - one.used).toBe(5);

    // 250 check runs → 250 requests → 3 points (rounded).
    const mid = await gql(auth, annotationsQuery(3), { ids0: ids[0], ids1: ids[1], ids2: ids[2]!.slice(0, 50) });
    expect(mid.used - five.used).toBe(3);
  });
});

describe('rate limits in the shapes GitHub documents', () => {
  it('a fault names only the headers it is given: the message alone leaves remaining above 0', async () => {
    sim.addToken('static');
    sim.injectFault({ path: /^\/rate_limit$/, status: 403, times: 1, message: SECONDARY_MESSAGE });
    const res = await call('GET', '/rate_limit', 'token static');
    expect(res.status).toBe(403);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.headers.get('x-ratelimit-remaining')).not.toBe('0');
  });

  it.each([
    ['retry-after', { status: 403, signal: 'retry-after' } as const],
    ['the message alone', { status: 403, signal: 'message' } as const],
    ['429 and a reset', { status: 429, signal: 'reset' } as const],
  ])(
    'the secondary limit on re-runs, answered with %s, counts per installation in a rolling window',
    async (_n, answer) => {
      sim.setSecondaryLimit({ limit: 2, windowMs: 60_000, answer });
      sim.addInstallation({ id: 9, account: 'other' });
      const runs = Array.from({ length: 3 }, () =>
        sim.addRun({ repo: REPO, jobs: [{ name: 't', conclusion: 'failure' }] }),
      );
      const auth = `token ${await token()}`;
      const statuses: number[] = [];
      let last: Response | undefined;
      for (const r of runs) {
        last = await call('POST', `/repos/${REPO}/actions/runs/${r.id}/rerun-failed-jobs`, auth);
        statuses.push(last.status);
      }
      expect(statuses).toEqual([201, 201, answer.status]);
      const [, message] = await refusal(last!);
      expect(message).toMatch(/exceeded a secondary rate limit/);
      expect(last!.headers.get('retry-after') !== null).toBe(answer.signal === 'retry-after');
      expect(last!.headers.get('x-ratelimit-remaining') === '0').toBe(answer.signal === 'reset');
      expect(sim.reruns).toHaveLength(2);

      // Another installation has its own window.
      const other = sim.addRun({ repo: 'other/x', jobs: [{ name: 't', conclusion: 'failure' }] });
      const res = await call('POST', '/app/installations/9/access_tokens', `Bearer ${fakeJwt()}`);
      const otherAuth = `token ${((await res.json()) as { token: string }).token}`;
      expect((await call('POST', `/repos/other/x/actions/runs/${other.id}/rerun-failed-jobs`, otherAuth)).status).toBe(
        201,
      );
    },
  );

  it('is off unless a test turns it on', async () => {
    const auth = `token ${await token()}`;
    for (let i = 0; i < 5; i++) {
      const r = sim.addRun({ repo: REPO, jobs: [{ name: 't', conclusion: 'failure' }] });
      expect((await call('POST', `/repos/${REPO}/actions/runs/${r.id}/rerun-failed-jobs`, auth)).status).toBe(201);
    }
  });
});
