import { beforeEach, describe, expect, it } from 'vitest';
import { enqueuePullRequest, readMergeGroup } from '../../lib/github/merge-queue.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

let gh: SimRepo;
let pr = 100;
simRepoForTests((r) => (gh = r));
beforeEach(() => {
  pr++;
});
const repo = () => ({ owner: gh.repo.split('/')[0]!, name: gh.repo.split('/')[1]! });

describe('readMergeGroup (simulator)', () => {
  it("the pull request the group named, and the parents of the group's commit, from one query", async () => {
    const group = gh.sim.addMergeGroupRun({
      repo: gh.repo,
      pullRequest: pr,
      jobs: [{ name: 'ci', conclusion: 'failure' }],
    });
    const facts = await readMergeGroup(gh.api(), repo(), pr, group.groupSha);
    expect(facts.pull).toMatchObject({ state: 'OPEN', headSha: group.testedHead });
    expect(typeof facts.pull?.id).toBe('string');
    expect(facts.parents).toEqual([group.baseSha, group.testedHead]);
    expect(facts).not.toHaveProperty('error');
    expect(gh.sim.count('POST', /graphql$/)).toBe(1);
  });

  it('a squash group has one parent: the tested head cannot be read from it', async () => {
    const group = gh.sim.addMergeGroupRun({
      repo: gh.repo,
      pullRequest: pr,
      mergeMethod: 'squash',
      jobs: [{ name: 'ci', conclusion: 'failure' }],
    });
    expect((await readMergeGroup(gh.api(), repo(), pr, group.groupSha)).parents).toEqual([group.baseSha]);
  });

  it("no such pull request: none, and GitHub's error in its words", async () => {
    const facts = await readMergeGroup(gh.api(), repo(), 99_999, 'c'.repeat(40));
    expect(facts.pull).toBeNull();
    expect(facts.error).toMatch(/NOT_FOUND|Could not resolve/);
  });
});

describe('enqueuePullRequest (simulator)', () => {
  it('puts the pull request back when its head is still the one tested, with one mutation', async () => {
    const group = gh.sim.addMergeGroupRun({
      repo: gh.repo,
      pullRequest: pr,
      jobs: [{ name: 'ci', conclusion: 'failure' }],
    });
    const { pull } = await readMergeGroup(gh.api(), repo(), pr, group.groupSha);
    gh.sim.resetRequests();
    expect(await enqueuePullRequest(gh.api(), pull!.id, group.testedHead)).toEqual({ accepted: true });
    expect(gh.sim.pullRequest(gh.repo, pr)?.inMergeQueue).toBe(true);
    expect(gh.sim.enqueueRequests.at(-1)).toMatchObject({ expectedHeadOid: group.testedHead });
  });

  it("a head that moved since: refused in GitHub's words", async () => {
    const group = gh.sim.addMergeGroupRun({
      repo: gh.repo,
      pullRequest: pr,
      jobs: [{ name: 'ci', conclusion: 'failure' }],
    });
    const { pull } = await readMergeGroup(gh.api(), repo(), pr, group.groupSha);
    const answer = await enqueuePullRequest(gh.api(), pull!.id, 'd'.repeat(40));
    expect(answer.accepted).toBe(false);
    expect(answer).toMatchObject({ refusal: expect.stringMatching(/Head sha didn't match/) });
  });

  it('a 5xx on the mutation is thrown and never sent again in-process', async () => {
    const group = gh.sim.addMergeGroupRun({
      repo: gh.repo,
      pullRequest: pr,
      jobs: [{ name: 'ci', conclusion: 'failure' }],
    });
    const { pull } = await readMergeGroup(gh.api(), repo(), pr, group.groupSha);
    gh.sim.resetRequests();
    gh.sim.injectFault({ method: 'POST', path: /^\/graphql$/, status: 502, times: 5 });
    await expect(enqueuePullRequest(gh.api(), pull!.id, group.testedHead)).rejects.toMatchObject({ status: 502 });
    expect(gh.sim.count('POST', /graphql$/)).toBe(1);
  });
});
