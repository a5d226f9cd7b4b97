import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENQUEUE_MUTATION, MERGE_GROUP_QUERY } from '../../lib/github/merge-queue.js';
import { GitHubSimulator } from './index.js';

/** The simulator's merge queue is as strict as GitHub's: these are the answers reprise is taught by. */
let sim: GitHubSimulator;
const FULL = 11;
const NO_QUEUE = 12;
beforeAll(async () => {
  sim = await GitHubSimulator.start();
  sim.addInstallation({
    id: FULL,
    account: 'mq',
    permissions: {
      actions: 'write',
      contents: 'write',
      pull_requests: 'write',
      merge_queues: 'write',
      metadata: 'read',
    },
  });
  sim.addInstallation({ id: NO_QUEUE, account: 'plain' });
});
afterAll(async () => sim.close());

async function gql(installation: number, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${sim.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `token ${sim.issueToken(installation)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    data?: Record<string, unknown> | null;
    errors?: { type?: string; message: string }[];
  };
}

const lost = [{ name: 'test', conclusion: 'failure' as const }];
let n = 0;
const group = (repo = 'mq/app', over = {}) => sim.addMergeGroupRun({ repo, pullRequest: ++n, jobs: lost, ...over });
const pullId = async (repo: string, number: number, sha: string) => {
  const body = await gql(FULL, MERGE_GROUP_QUERY, { owner: repo.split('/')[0], name: repo.split('/')[1], number, sha });
  return body;
};

describe('the simulator knows merge queues', () => {
  it('a merge_group run carries the queue branch and the group commit; a failed required run removes the pull request from the queue', async () => {
    const passing = sim.addMergeGroupRun({
      repo: 'mq/app',
      pullRequest: ++n,
      jobs: [{ name: 'test', conclusion: 'success' }],
    });
    expect(sim.pullRequest('mq/app', n)?.inMergeQueue).toBe(true);
    const g = group();
    const run = sim.workflowRunJson(g.run.id) as {
      event: string;
      head_branch: string;
      head_sha: string;
      pull_requests: unknown[];
    };
    expect(run).toMatchObject({ event: 'merge_group', head_sha: g.groupSha, pull_requests: [] });
    expect(run.head_branch).toBe(`gh-readonly-queue/main/pr-${n}-${g.baseSha}`);
    expect(sim.pullRequest('mq/app', n)?.inMergeQueue).toBe(false);
    expect(passing.testedHead).not.toBe(g.testedHead);
  });

  it('answers the merge-group query: the pull request, and the group commit whose last parent is the tested head', async () => {
    const g = group();
    const body = await pullId('mq/app', n, g.groupSha);
    expect(body.errors).toBeUndefined();
    const repo = body.data!.repository as {
      pullRequest: Record<string, unknown>;
      object: { parents: { nodes: { oid: string }[] } };
    };
    expect(repo.pullRequest).toMatchObject({ state: 'OPEN', headRefOid: g.testedHead, isInMergeQueue: false });
    expect(repo.object.parents.nodes.map((p) => p.oid)).toEqual([g.baseSha, g.testedHead]);
  });

  it('takes the pull request back with enqueuePullRequest, and records each mutation sent', async () => {
    const g = group();
    const id = ((await pullId('mq/app', n, g.groupSha)).data!.repository as { pullRequest: { id: string } }).pullRequest
      .id;
    const before = sim.enqueueRequests.length;
    const body = await gql(FULL, ENQUEUE_MUTATION, { id, head: g.testedHead });
    expect(body.errors).toBeUndefined();
    expect(body.data).toMatchObject({ enqueuePullRequest: { mergeQueueEntry: { id: expect.any(String) } } });
    expect(sim.pullRequest('mq/app', n)?.inMergeQueue).toBe(true);
    expect(sim.enqueueRequests.slice(before)).toEqual([
      expect.objectContaining({ pullRequest: n, accepted: true, jump: false }),
    ]);

    // Already queued: refused, and still recorded as sent.
    const again = await gql(FULL, ENQUEUE_MUTATION, { id, head: g.testedHead });
    expect(again.errors?.[0]).toMatchObject({
      type: 'UNPROCESSABLE',
      message: expect.stringMatching(/already in the merge queue/),
    });
    expect(sim.enqueueRequests.slice(before)).toHaveLength(2);
  });

  it.each([
    [
      'the head moved',
      () => sim.addPullRequest('mq/app', { number: n, state: 'open', headSha: 'c'.repeat(40) }),
      /didn't match expected head/,
    ],
    [
      'not mergeable',
      () =>
        sim.addPullRequest('mq/app', {
          number: n,
          state: 'open',
          headSha: sim.pullRequest('mq/app', n)!.headSha,
          mergeable: false,
        }),
      /not mergeable/,
    ],
    [
      'closed',
      () =>
        sim.addPullRequest('mq/app', { number: n, state: 'closed', headSha: sim.pullRequest('mq/app', n)!.headSha }),
      /closed/,
    ],
  ])('refuses enqueuePullRequest when %s', async (_what, change, message) => {
    const g = group();
    const id = ((await pullId('mq/app', n, g.groupSha)).data!.repository as { pullRequest: { id: string } }).pullRequest
      .id;
    change();
    const body = await gql(FULL, ENQUEUE_MUTATION, { id, head: g.testedHead });
    expect(body.data).toEqual({ enqueuePullRequest: null });
    expect(body.errors?.[0]).toMatchObject({ type: 'UNPROCESSABLE', message: expect.stringMatching(message) });
    expect(sim.pullRequest('mq/app', n)?.inMergeQueue).toBe(false);
  });

  it('refuses enqueuePullRequest to an installation without write access to pull requests, contents and merge queues', async () => {
    const g = group('plain/app');
    const read = await gql(NO_QUEUE, MERGE_GROUP_QUERY, { owner: 'plain', name: 'app', number: n, sha: g.groupSha });
    const id = (read.data!.repository as { pullRequest: { id: string } }).pullRequest.id;
    const body = await gql(NO_QUEUE, ENQUEUE_MUTATION, { id, head: g.testedHead });
    expect(body.errors?.[0]).toMatchObject({ type: 'FORBIDDEN', message: 'Resource not accessible by integration' });
    expect(sim.pullRequest('plain/app', n)?.inMergeQueue).toBe(false);
  });

  it('counts a mutation against the content-creation limit, as a re-run POST; a GraphQL read does not count', async () => {
    sim.setSecondaryLimit({ limit: 1 });
    try {
      const g = group();
      const read = await pullId('mq/app', n, g.groupSha);
      const id = (read.data!.repository as { pullRequest: { id: string } }).pullRequest.id;
      await pullId('mq/app', n, g.groupSha);
      expect((await gql(FULL, ENQUEUE_MUTATION, { id, head: g.testedHead })).errors).toBeUndefined();
      const res = await fetch(`${sim.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `token ${sim.issueToken(FULL)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: ENQUEUE_MUTATION, variables: { id, head: g.testedHead } }),
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('retry-after')).not.toBeNull();
      expect(sim.contentLimit).toMatchObject({ received: 2, accepted: 1, refused: 1 });
    } finally {
      sim.setSecondaryLimit(null);
    }
  });

  it.each([
    [
      'an input field GitHub does not have',
      'mutation($id: ID!) { enqueuePullRequest(input: { pullRequestId: $id, position: 1 }) { clientMutationId } }',
      /position/,
    ],
    [
      'a payload field GitHub does not have',
      'mutation($id: ID!) { enqueuePullRequest(input: { pullRequestId: $id }) { pullRequest { id } } }',
      /pullRequest/,
    ],
    [
      'the required pull request id left out',
      'mutation { enqueuePullRequest(input: { jump: true }) { clientMutationId } }',
      /pullRequestId/,
    ],
    [
      'a merge-queue field GitHub does not have',
      'query($o: String!, $r: String!) { repository(owner: $o, name: $r) { pullRequest(number: 1) { queuePosition } } }',
      /queuePosition/,
    ],
  ])("validates merge-queue documents against GitHub's published schema: refuses %s", async (_what, query, message) => {
    const body = await gql(FULL, query, { id: 'PR_x', o: 'mq', r: 'app' });
    expect(body.data ?? undefined).toBeUndefined();
    expect(body.errors?.map((e) => e.message).join('\n')).toMatch(message);
  });
});
