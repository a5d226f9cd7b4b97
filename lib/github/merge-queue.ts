import type { EnqueueAnswer, MergeGroupFacts, QueuedPullFacts } from '../decide/merge-group.js';
import type { GraphqlAnswer } from './repo-answers.js';
import type { RepoApi } from './repo-api.js';

/**
 * The merge queue on GitHub: one query reads the pull request a group named and the parents of
 * the group's commit; one mutation puts the pull request back, at the end of the queue (never
 * `jump`), and only while its head is still the commit the group tested. Each document selects
 * only what its parser reads (test/github/graphql-documents.test.ts holds that).
 */
export const MERGE_GROUP_QUERY = `query($owner: String!, $name: String!, $number: Int!, $sha: GitObjectID!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) { id state headRefOid isInMergeQueue }
    object(oid: $sha) { ... on Commit { parents(first: 3) { nodes { oid } } } }
  }
}`;

/** Puts a pull request back in its merge queue, only if its head is still the one that was tested. */
export const ENQUEUE_MUTATION = `mutation($id: ID!, $head: GitObjectID!) {
  enqueuePullRequest(input: { pullRequestId: $id, expectedHeadOid: $head }) {
    mergeQueueEntry { id }
  }
}`;

const said = (a: GraphqlAnswer): string | undefined =>
  a.errors?.length
    ? a.errors.map((e) => (e.type ? `${e.type}: ${e.message ?? ''}` : (e.message ?? ''))).join('; ')
    : undefined;

interface RawPull {
  id: string;
  state: QueuedPullFacts['state'];
  headRefOid: string;
  isInMergeQueue: boolean;
}

/** The pull request behind a merge-group run (its id, state, head, whether it is still queued) and the group commit's parents. */
export async function readMergeGroup(
  api: RepoApi,
  repo: { readonly owner: string; readonly name: string },
  pullRequest: number,
  groupSha: string,
): Promise<MergeGroupFacts> {
  const answer = await api.graphqlDocument(MERGE_GROUP_QUERY, {
    owner: repo.owner,
    name: repo.name,
    number: pullRequest,
    sha: groupSha,
  });
  const repository = answer.data?.repository as
    { pullRequest?: RawPull | null; object?: { parents?: { nodes?: { oid: string }[] } } | null } | null | undefined;
  const raw = repository?.pullRequest;
  const pull: QueuedPullFacts | null = raw
    ? { id: raw.id, state: raw.state, headSha: raw.headRefOid, inMergeQueue: raw.isInMergeQueue }
    : null;
  const nodes = repository?.object?.parents?.nodes;
  const error = said(answer);
  return { pull, parents: nodes ? nodes.map((n) => n.oid) : null, ...(error && !pull && { error }) };
}

/** `enqueuePullRequest`: the pull request back in its merge queue, or GitHub's reason for refusing. */
export async function enqueuePullRequest(
  api: RepoApi,
  pullRequestId: string,
  expectedHeadOid: string,
): Promise<EnqueueAnswer> {
  const answer = await api.graphqlDocument(
    ENQUEUE_MUTATION,
    { id: pullRequestId, head: expectedHeadOid },
    { oneShot: true },
  );
  const entry = (answer.data?.enqueuePullRequest as { mergeQueueEntry?: { id?: unknown } | null } | null | undefined)
    ?.mergeQueueEntry;
  if (typeof entry?.id === 'string' && !answer.errors?.length) return { accepted: true };
  return { accepted: false, refusal: said(answer) ?? 'GitHub returned no merge queue entry' };
}
