/**
 * The GitHub simulator and one repository's RepoApi over it, for the GitHub adapter's unit
 * tests: real HTTP, real Octokit clients, every request counted at the simulator.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createClientFactory, type GitHubClients } from '../../lib/github/client.js';
import { RepoApi } from '../../lib/github/repo-api.js';
import { type RepoRequests, repoRequests } from '../../lib/github/repo-requests.js';
import type { TimeoutOptions } from '../../lib/github/request-timeout.js';
import { GitHubSimulator } from '../sim/index.js';
import { MemoryLog } from '../support/memory-log.js';

export interface SimRepo {
  readonly sim: GitHubSimulator;
  /** `owner/name` of the repository the API speaks for. */
  readonly repo: string;
  readonly log: MemoryLog;
  /** The installation's clients (a static token: it sees every repository). */
  readonly clients: GitHubClients;
  /** A fresh RepoApi of `repo` (or another), its request count at 0. */
  api(repo?: string): RepoApi;
  /** The calls a RepoApi makes for `repo`, each request told to `onRequest`. */
  requests(onRequest?: () => void): RepoRequests;
  close(): Promise<void>;
}

export async function simRepo(opts: { repo?: string } & TimeoutOptions = {}): Promise<SimRepo> {
  const sim = await GitHubSimulator.start({ logHost: '127.0.0.1' });
  const token = 'ghs_unit';
  sim.addToken(token);
  const log = new MemoryLog();
  const factory = createClientFactory({
    apiUrl: sim.url,
    credentials: { kind: 'token', token },
    log,
    retryBaseMs: 1,
    writeSpacingMs: 0,
    // A loaded machine must not time a request out unless the test asks for it.
    requestTimeoutMs: opts.requestTimeoutMs ?? 10 * 60_000,
    ...(opts.timeoutSignal && { timeoutSignal: opts.timeoutSignal }),
  });
  const clients = factory(1);
  const repo = opts.repo ?? 'acme/widgets';
  // The repository exists, with no file in it.
  sim.setRepoFile(repo, 'README.md', null);
  return {
    sim,
    repo,
    log,
    clients,
    api: (name = repo) => {
      const [owner, r] = name.split('/') as [string, string];
      return new RepoApi(clients, owner, r, sim.graphqlUrl);
    },
    requests: (onRequest = () => undefined) => {
      const [owner, r] = repo.split('/') as [string, string];
      return repoRequests(clients, { owner, repo: r, graphqlUrl: sim.graphqlUrl }, onRequest);
    },
    close: () => sim.close(),
  };
}

/**
 * One simulated repository for a file's (or a describe block's) tests: started before them,
 * handed to `use`, its faults and request log cleared before each test, closed after them all.
 */
export function simRepoForTests(use: (gh: SimRepo) => void): void {
  let gh: SimRepo | undefined;
  beforeAll(async () => {
    gh = await simRepo();
    use(gh);
  });
  afterAll(() => gh?.close());
  beforeEach(() => {
    gh!.sim.clearFaults();
    gh!.sim.resetRequests();
  });
}
