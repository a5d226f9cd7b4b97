import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GITHUB_REQUEST_TIMEOUT_MS } from '../../lib/config/github-settings.js';
import { RequestTimeoutError, TransientError } from '../../lib/errors.js';
import { RepoApi } from '../../lib/github/repo-api.js';
import { errorLine, lostJob, TEXT } from '../support/evidence.js';
import { type Harness, INSTALLATION_ID, startHarness } from '../support/harness.js';
import { slowGitHub } from '../support/slow-github.js';
import { VirtualClock } from '../support/virtual-clock.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.sim.latencyMs = 0;
  h.log.clear();
  h.sim.resetRequests();
});

describe('every GitHub request has a timeout', () => {
  it('a REST call GitHub does not answer within the request timeout is a RequestTimeoutError (transient), sent once, not retried in-process', async () => {
    const clock = new VirtualClock();
    const run = h.sim.addRun({ repo: 'acme/slow-rest', jobs: [lostJob('test', 'runner-1')] });
    const api = new RepoApi(slowGitHub(h, clock)(INSTALLATION_ID), 'acme', 'slow-rest', h.sim.graphqlUrl);
    await api.getRun(run.id); // the installation token, exchanged while GitHub is fast
    h.sim.resetRequests();

    h.sim.latencyMs = GITHUB_REQUEST_TIMEOUT_MS + 1_000;
    const err = await api.getRun(run.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err).toBeInstanceOf(TransientError);
    expect(h.sim.requests.map((r) => r.path)).toEqual([`/repos/acme/slow-rest/actions/runs/${run.id}`]);
  });

  it('a request answered just within its timeout succeeds', async () => {
    const clock = new VirtualClock();
    const run = h.sim.addRun({ repo: 'acme/just-in-time', jobs: [lostJob('test', 'runner-1')] });
    const api = new RepoApi(slowGitHub(h, clock)(INSTALLATION_ID), 'acme', 'just-in-time', h.sim.graphqlUrl);
    await api.getRun(run.id);
    h.sim.latencyMs = GITHUB_REQUEST_TIMEOUT_MS - 1;
    await expect(api.getRun(run.id)).resolves.toMatchObject({ id: run.id });
  });

  it('a GraphQL query GitHub does not answer in time is a RequestTimeoutError too', async () => {
    const clock = new VirtualClock();
    const run = h.sim.addRun({ repo: 'acme/slow-graphql', jobs: [lostJob('test', 'runner-1')] });
    const api = new RepoApi(slowGitHub(h, clock)(INSTALLATION_ID), 'acme', 'slow-graphql', h.sim.graphqlUrl);
    const jobs = await api.listAttemptJobs(run.id, 1);
    h.sim.latencyMs = GITHUB_REQUEST_TIMEOUT_MS + 1_000;
    await expect(api.annotationsByGraphql(jobs)).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it("the job log's host not answering within the request timeout is a RequestTimeoutError, not an unreadable log", async () => {
    const clock = new VirtualClock();
    const run = h.sim.addRun({
      repo: 'acme/slow-log',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [], log: errorLine(TEXT.selfHostedNamed('r-1')) }],
    });
    const api = new RepoApi(slowGitHub(h, clock)(INSTALLATION_ID), 'acme', 'slow-log', h.sim.graphqlUrl);
    const [job] = await api.listAttemptJobs(run.id, 1);
    // Only the log host is slow: the redirect from the API is answered at once.
    h.sim.latencyMs = 1;
    h.sim.latencyWait = async () => {
      if (h.sim.requests.at(-1)?.path.startsWith('/_logs/')) clock.advance(GITHUB_REQUEST_TIMEOUT_MS + 1_000);
    };
    const opts = { allowHosts: ['127.0.0.1'], windowBytes: 64 * 1024, log: h.log };
    await expect(api.jobLog(job!.id, opts)).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(h.sim.requests.some((r) => r.path.startsWith('/_logs/'))).toBe(true);
  });
});
