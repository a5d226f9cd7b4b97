/**
 * One read per file, however many ask at once. The first decisions in new repositories of one
 * organisation each look for `.github/reprise.yml` in their repository, then in the
 * organisation's `.github` repository: decided side by side, they share that fallback's one
 * request in flight instead of each reading it (295 of a 300-run burst did, before the first
 * 404 was remembered). Counted at the GitHub simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepoApi } from '../../lib/github/repo-api.js';
import { RepoConfigSource } from '../../lib/github/repo-config-source.js';
import { BUILT_IN_DEFAULTS as DEFAULT_REPO_CONFIG } from '../../lib/config/repo-config.js';
import { type Harness, INSTALLATION_ID, startHarness } from '../support/harness.js';
import { lostRun } from '../support/reconcile-kit.js';

const N = 10;
const orgFile = /^\/repos\/acme\/\.github\/contents\/\.github(%2F|\/)reprise\.yml/;
const repoFile = (repo: string) => new RegExp(`^/repos/acme/${repo}/contents/\\.github(%2F|/)reprise\\.yml`);

describe('concurrent reads of one configuration file share one request', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it(`${N} concurrent first decisions in new repositories of one org read the org's .github file once, each repository's own once, and re-run each run once`, async () => {
    const runs = Array.from({ length: N }, (_, i) => lostRun(h, `acme/burst-new-${i}`));
    h.sim.resetRequests();
    // One batch, one group per run: the worker decides them side by side.
    const res = await h.worker()(h.sqsEvent(runs.map((r) => h.message(r.id))));
    expect(res.batchItemFailures).toEqual([]);
    expect(h.sim.count('GET', orgFile)).toBe(1);
    for (let i = 0; i < N; i++) expect(h.sim.count('GET', repoFile(`burst-new-${i}`))).toBe(1);
    for (const r of runs) expect(h.sim.rerunTally(r.id)).toMatchObject({ received: 1, accepted: 1 });
  });

  it('a shared read that fails fails each caller that shared it, and the next read asks GitHub again', async () => {
    const api = new RepoApi(h.client(INSTALLATION_ID), 'acme', 'shared-fault', h.sim.graphqlUrl);
    h.sim.injectFault({ method: 'GET', path: orgFile, status: 500 });
    try {
      // What one caller's failed read costs (the client retries a 500 on its own).
      h.sim.resetRequests();
      await expect(new RepoConfigSource().load(api, 'acme', 'shared-fault', DEFAULT_REPO_CONFIG)).rejects.toThrow();
      const one = h.sim.count('GET', orgFile);
      expect(one).toBeGreaterThanOrEqual(1);

      const source = new RepoConfigSource();
      h.sim.resetRequests();
      const all = await Promise.allSettled(
        Array.from({ length: 5 }, () => source.load(api, 'acme', 'shared-fault', DEFAULT_REPO_CONFIG)),
      );
      expect(all.every((r) => r.status === 'rejected')).toBe(true);
      // Five callers, the cost of one.
      const failed = h.sim.count('GET', orgFile);
      expect(failed).toBe(one);
      expect(h.sim.count('GET', repoFile('shared-fault'))).toBe(1);
      h.sim.clearFaults();
      const after = await source.load(api, 'acme', 'shared-fault', DEFAULT_REPO_CONFIG);
      expect(after.origin).toBe('defaults');
      expect(h.sim.count('GET', orgFile)).toBe(failed + 1);
    } finally {
      h.sim.clearFaults();
    }
  });
});
