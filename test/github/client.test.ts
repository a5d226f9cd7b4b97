import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitedError, UnknownInstallationError } from '../../lib/errors.js';
import { createAppClient, createClientFactory, meteredRequest, ONE_SHOT } from '../../lib/github/client.js';
import { GitHubSimulator, simAppPrivateKey } from '../sim/index.js';
import { MemoryLog } from '../support/memory-log.js';

const APP_ID = '1234567';
const INSTALLATION = 4242;
let sim: GitHubSimulator;
let runId: number;
beforeAll(async () => {
  sim = await GitHubSimulator.start();
  sim.addInstallation({ id: INSTALLATION, account: 'acme' });
  runId = sim.addRun({ repo: 'acme/widgets', jobs: [{ name: 'unit', conclusion: 'failure' }] }).id;
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.clearFaults();
  sim.resetRequests();
});

const app = { kind: 'app' as const, appId: APP_ID, privateKey: simAppPrivateKey() };
const factory = (over: Partial<Parameters<typeof createClientFactory>[0]> = {}) =>
  createClientFactory({
    apiUrl: sim.url,
    credentials: app,
    log: new MemoryLog(),
    retryBaseMs: 1,
    writeSpacingMs: 0,
    requestTimeoutMs: 10 * 60_000,
    ...over,
  });
const RUN = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}';
const getRepo = () => ({ owner: 'acme', repo: 'widgets', run_id: runId });
const RUN_PATH = () => new RegExp(`^/repos/acme/widgets/actions/runs/${runId}$`);
const tokenExchanges = () => sim.count('POST', /\/app\/installations\/\d+\/access_tokens$/);

describe('createClientFactory (simulator)', () => {
  it("an installation's REST and GraphQL clients share one token exchange", async () => {
    const clients = factory()(INSTALLATION);
    await clients.rest.request(RUN, getRepo());
    await clients.graphql.request(`POST ${sim.graphqlUrl}`, { query: '{ viewer { login } }' });
    await clients.rest.request(RUN, getRepo());
    expect(tokenExchanges()).toBe(1);
  });

  it('one set of clients per installation, kept', () => {
    const make = factory();
    expect(make(INSTALLATION)).toBe(make(INSTALLATION));
    expect(make(INSTALLATION)).not.toBe(make(INSTALLATION + 1));
  });

  it('App credentials need an installation id: none is an UnknownInstallationError at once', () => {
    expect(() => factory()(null)).toThrow(UnknownInstallationError);
  });

  it('an installation GitHub does not know is an UnknownInstallationError, whatever the request', async () => {
    const clients = factory()(999_999);
    await expect(clients.rest.request(RUN, getRepo())).rejects.toBeInstanceOf(UnknownInstallationError);
  });

  it('a token serves without an installation id', async () => {
    sim.addToken('ghp_unit');
    const clients = factory({ credentials: { kind: 'token', token: 'ghp_unit' } })(null);
    const { data } = await clients.rest.request(RUN, getRepo());
    expect(data.id).toBe(runId);
    expect(tokenExchanges()).toBe(0);
  });

  it('a 5xx on a read is retried in-process; a one-shot call is sent once', async () => {
    const clients = factory()(INSTALLATION);
    sim.injectFault({ method: 'GET', path: RUN_PATH(), status: 502, times: 1 });
    await clients.rest.request(RUN, getRepo());
    expect(sim.count('GET', RUN_PATH())).toBe(2);
    sim.injectFault({ method: 'GET', path: RUN_PATH(), status: 502, times: 1 });
    await expect(clients.rest.request(RUN, { ...getRepo(), request: ONE_SHOT })).rejects.toMatchObject({
      status: 502,
    });
    expect(sim.count('GET', RUN_PATH())).toBe(3);
  });

  it('a rate limit longer than the in-process wait is a RateLimitedError with its delay', async () => {
    const clients = factory({ maxInlineWaitSeconds: 5 })(INSTALLATION);
    sim.injectFault({ method: 'GET', path: RUN_PATH(), status: 429, retryAfter: 120, times: 5 });
    const err = await clients.rest.request(RUN, getRepo()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).delayMs).toBe(120_000);
  });

  it('a spent primary limit told by its headers is a RateLimitedError until the reset', async () => {
    const clients = factory()(INSTALLATION);
    sim.injectFault({ method: 'GET', path: RUN_PATH(), status: 403, resetAfter: 300, times: 5 });
    const err = await clients.rest.request(RUN, getRepo()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).delayMs).toBeGreaterThan(290_000);
    expect((err as RateLimitedError).delayMs).toBeLessThanOrEqual(301_000);
  });

  it('a plain 403 stays an HTTP error, not a rate limit', async () => {
    const clients = factory()(INSTALLATION);
    sim.injectFault({
      method: 'GET',
      path: RUN_PATH(),
      status: 403,
      message: 'Resource not accessible by integration',
    });
    const err = await clients.rest.request(RUN, getRepo()).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ status: 403 });
  });

  it("reports each response's remaining rate limit", async () => {
    const seen: number[] = [];
    const clients = factory({ onRateLimitRemaining: (n) => seen.push(n) })(INSTALLATION);
    await clients.rest.request(RUN, getRepo());
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((n) => Number.isInteger(n) && n >= 0)).toBe(true);
  });
});

describe('meteredRequest', () => {
  it('counts each call it makes, failed ones too', async () => {
    const clients = factory()(INSTALLATION);
    let sent = 0;
    const request = meteredRequest(clients.rest, () => void sent++);
    await request(RUN, getRepo());
    await expect(request(RUN, { owner: 'acme', repo: 'widgets', run_id: 99_999_999 })).rejects.toMatchObject({
      status: 404,
    });
    expect(sent).toBe(2);
  });
});

describe('createAppClient (simulator)', () => {
  it('calls the /app endpoints as the App itself, with a JWT', async () => {
    const client = createAppClient({ apiUrl: sim.url, credentials: app, log: new MemoryLog(), retryBaseMs: 1 });
    const { data } = await client.request('GET /app');
    expect(String(data?.id)).toBe(APP_ID);
  });
});
