import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  announceGitHub,
  appClient,
  credentialsFrom,
  describeGitHubError,
  githubSettings,
  installationFor,
  isLoopbackHost,
  requireCredentialSafeUrl,
  settingsFrom,
} from '../../lib/cli/github.js';
import { CliError } from '../../lib/cli/io.js';
import { main } from '../../lib/cli/main.js';
import { RequestTimeoutError } from '../../lib/errors.js';
import { GitHubSimulator } from '../sim/index.js';
import { APP_ID, testPrivateKey } from '../support/harness.js';
import { captureIo } from './support.js';

describe('a GitHub that does not answer', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Takes the connection and never answers: the request's own timeout ends it.
    server = createServer(() => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('a GitHub timeout names the full URL and a hint, as connection-refused does', async () => {
    const io = captureIo({ APP_ID, PRIVATE_KEY: testPrivateKey(), GITHUB_API_URL: url });
    expect(await main(['explain', 'acme/web#12'], io)).toBe(1);
    expect(io.err()).toContain(`GitHub did not answer GET ${url}/repos/acme/web/installation within 5000 ms`);
    expect(io.err()).toContain('check GITHUB_API_URL');
    expect(io.err()).not.toContain('{owner}');
  });
});

describe('github: where credentials may go', () => {
  it('loopback is 127.0.0.0/8, [::1] and localhost; nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '[::1]', 'LocalHost']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['10.0.0.1', '127.0.0', 'localhost.example.com', '128.0.0.1', '::1']) {
      expect(isLoopbackHost(h)).toBe(false);
    }
  });

  it('https anywhere, plain http to this machine only; anything else refused naming the setting and the URL', () => {
    expect(() => requireCredentialSafeUrl('https://ghe.example.com/api/v3', 'GITHUB_API_URL')).not.toThrow();
    expect(() => requireCredentialSafeUrl('http://127.0.0.1:3000', 'GITHUB_API_URL')).not.toThrow();
    expect(() => requireCredentialSafeUrl('http://[::1]:3000/api', 'GITHUB_API_URL')).not.toThrow();
    expect(() => requireCredentialSafeUrl('http://10.0.0.1/api/v3', 'GITHUB_API_URL')).toThrow(
      'GITHUB_API_URL is http://10.0.0.1/api/v3: reprise sends GitHub credentials only over https',
    );
    expect(() => requireCredentialSafeUrl('ftp://127.0.0.1', '--api-url')).toThrow(CliError);
    expect(() => requireCredentialSafeUrl('not a url', '--api-url')).toThrow(
      '--api-url: expected an https URL, got "not a url"',
    );
  });

  it('a command that calls GitHub checks both URLs before anything, then says the host first', () => {
    const io = captureIo({
      GITHUB_API_URL: 'https://ghe.example.com/api/v3',
      GITHUB_GRAPHQL_URL: 'http://ghe.example.com/api/graphql',
    });
    expect(() => githubSettings(io, false)).toThrow('GITHUB_GRAPHQL_URL is http://ghe.example.com/api/graphql');
    expect(io.out()).toBe('');
    const ok = captureIo({ GITHUB_API_URL: 'https://ghe.example.com/api/v3' });
    expect(githubSettings(ok, false).apiUrl).toBe('https://ghe.example.com/api/v3');
    expect(ok.out()).toBe('GitHub host: ghe.example.com (https://ghe.example.com/api/v3)\n');
  });

  it('the host line goes to stderr with --json, and names a GraphQL host of its own', () => {
    const io = captureIo({});
    announceGitHub(io, true, 'https://api.example.com', 'https://gql.example.com/graphql');
    expect(io.out()).toBe('');
    expect(io.err()).toBe(
      'GitHub host: api.example.com (https://api.example.com), GraphQL host: gql.example.com (https://gql.example.com/graphql)\n',
    );
  });

  it('a setting or credential the CLI cannot use is one CliError line, no stack', () => {
    expect(() => settingsFrom({ MAX_ATTEMPTS: 'lots' })).toThrow(CliError);
    expect(() => credentialsFrom({}, true)).toThrow(
      'GitHub credentials missing: set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), or GITHUB_TOKEN',
    );
    expect(() => credentialsFrom({ GITHUB_TOKEN: 'ghp_x' }, false)).toThrow("this command needs the App's credentials");
    expect(credentialsFrom({ GITHUB_TOKEN: 'ghp_x' }, true)).toEqual({ kind: 'token', token: 'ghp_x' });
  });
});

describe('github: the installation of a repository', () => {
  let sim: GitHubSimulator;
  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: 31, account: 'acme', repos: ['web'] });
  });
  afterAll(async () => {
    await sim.close();
  });
  const app = () => {
    const creds = credentialsFrom({ APP_ID, PRIVATE_KEY: testPrivateKey() }, false);
    if (creds.kind !== 'app') throw new Error('expected App credentials');
    return appClient(sim.url, creds, captureIo({}));
  };

  it("the App's installation on the repository, asked as the App; none with a token", async () => {
    expect(await installationFor(app(), 'acme', 'web')).toBe(31);
    expect(sim.requests.some((r) => r.path === '/repos/acme/web/installation')).toBe(true);
    expect(await installationFor(undefined, 'acme', 'web')).toBeNull();
  });

  it('a repository the App is not installed on: what to do, and the URL that answered 404', async () => {
    const err = await installationFor(app(), 'other', 'repo').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toBe(
      `the App is not installed on other/repo (GET ${sim.url}/repos/other/repo/installation answered 404): install it on that repository, or check the name`,
    );
  });
});

describe('github: one line for a GitHub failure', () => {
  const failure = (status: number, message: string, cause?: unknown) =>
    Object.assign(new Error(message), {
      status,
      request: { method: 'POST', url: 'https://api.github.com/repos/a/b/actions/runs/1/rerun' },
      response: { data: { message } },
      ...(cause !== undefined && { cause }),
    });
  const tried = 'POST https://api.github.com/repos/a/b/actions/runs/1/rerun';

  it('401, 403 and 404 say what was tried and what to check', () => {
    expect(describeGitHubError(failure(401, 'Bad credentials'))).toBe(
      `GitHub refused the credentials (401 Bad credentials) for ${tried}. Check APP_ID and PRIVATE_KEY (the key must be one issued for this App) or GITHUB_TOKEN, and GITHUB_API_URL`,
    );
    expect(describeGitHubError(failure(403, 'Resource not accessible by integration'))).toBe(
      `forbidden: ${tried} answered 403 Resource not accessible by integration`,
    );
    expect(describeGitHubError(failure(404, 'Not Found'))).toBe(
      `not found: ${tried} answered 404 (or the credentials cannot see it)`,
    );
  });

  it("a connection that failed names the system's code; any other status is said as is", () => {
    const refused = failure(
      500,
      'fetch failed',
      Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } }),
    );
    expect(describeGitHubError(refused)).toBe(
      `cannot reach GitHub: ${tried} failed (ECONNREFUSED); check GITHUB_API_URL`,
    );
    expect(describeGitHubError(failure(500, 'Server Error'))).toBe(`${tried} answered 500: Server Error`);
    expect(describeGitHubError(failure(422, 'Unprocessable'))).toBe(`${tried} answered 422: Unprocessable`);
  });

  it('a timeout adds what to check; a fault that is not an HTTP answer is not described', () => {
    expect(describeGitHubError(new RequestTimeoutError('GitHub did not answer GET x within 5000 ms'))).toBe(
      'GitHub did not answer GET x within 5000 ms; check GITHUB_API_URL and that this machine reaches that host (a proxy, VPN or firewall?), then try again',
    );
    expect(describeGitHubError(new Error('plain'))).toBeUndefined();
    expect(describeGitHubError(undefined)).toBeUndefined();
  });
});
