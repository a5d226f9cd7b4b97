import examples from '@octokit/webhooks-examples';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_DEFAULTS, parseRepoConfig } from '../../lib/config/repo-config.js';
import {
  decideRequeue,
  maxRequeues,
  type MergeGroupFacts,
  mergeQueueMode,
  parseMergeGroupBranch,
  type RequeueFacts,
  testedHead,
} from '../../lib/decide/merge-group.js';
import { config, deepFreeze, runMessage } from '../support/fixtures.js';

const BASE = '1'.repeat(40);
const HEAD = '2'.repeat(40);
const GROUP = '3'.repeat(40);
const branch = `gh-readonly-queue/main/pr-42-${BASE}`;
const msg = runMessage({ event: 'merge_group', headBranch: branch, headSha: GROUP, pullRequests: [] });
const open = { id: 'PR_42', state: 'OPEN' as const, headSha: HEAD, inMergeQueue: false };
const group = (over: Partial<MergeGroupFacts> = {}): MergeGroupFacts => ({
  pull: open,
  parents: [BASE, HEAD],
  ...over,
});
const facts = (over: Partial<RequeueFacts> = {}): RequeueFacts =>
  deepFreeze({ message: msg, config: config(), rerunReason: '1 job(s) lost to infrastructure: test', ...over });

describe('merge-group head branches', () => {
  it.each([
    [branch, { base: 'main', pullRequest: 42, sha: BASE }],
    [`refs/heads/gh-readonly-queue/release/2.x/pr-7-${BASE}`, { base: 'release/2.x', pullRequest: 7, sha: BASE }],
    ['main', undefined],
    [`gh-readonly-queue/main/pr-42-${BASE.slice(1)}`, undefined],
    [`gh-readonly-queue/main/pr-0-${BASE}`, undefined],
    [null, undefined],
  ])('%s names %o', (name, expected) => {
    expect(parseMergeGroupBranch(name)).toEqual(expected);
  });

  it('reads the tested head from the merge commit, never from the branch name', () => {
    expect(testedHead([BASE, HEAD])).toBe(HEAD);
    expect(testedHead([BASE])).toBeUndefined();
    expect(testedHead([])).toBeUndefined();
  });
});

describe('what a merge-group run that would be re-run gets', () => {
  it.each<[string, RequeueFacts, ReturnType<typeof decideRequeue>['kind'], string?, RegExp?]>([
    ['a run that is not a merge group: the re-run', facts({ message: runMessage({ event: 'pull_request' }) }), 'rerun'],
    ['merge_queue: rerun: the re-run, nothing read', facts({ config: config({ mergeQueue: 'rerun' }) }), 'rerun'],
    [
      'merge_queue: off: left alone',
      facts({ config: config({ mergeQueue: 'off' }) }),
      'final',
      'ignored',
      /merge_queue: off/,
    ],
    ['first, the group is read', facts(), 'need'],
    [
      'a branch that names no pull request: the re-run, with why',
      facts({ message: { ...msg, headBranch: 'gh-readonly-queue/main' } }),
      'rerun',
      undefined,
      /names no pull request/,
    ],
    [
      'a pull request GitHub would not show: the re-run',
      facts({ group: group({ pull: null, error: 'FORBIDDEN: x' }) }),
      'rerun',
      undefined,
      /could not be read \(FORBIDDEN: x\)/,
    ],
    [
      'a closed pull request: stale',
      facts({ group: group({ pull: { ...open, state: 'CLOSED' } }) }),
      'final',
      'stale',
      /is closed/,
    ],
    [
      'a merged pull request: stale',
      facts({ group: group({ pull: { ...open, state: 'MERGED' } }) }),
      'final',
      'stale',
      /is merged/,
    ],
    [
      'the head moved: stale',
      facts({ group: group({ pull: { ...open, headSha: '9'.repeat(40) } }) }),
      'final',
      'stale',
      /head moved from 2222222/,
    ],
    [
      'already back in the queue: stale',
      facts({ group: group({ pull: { ...open, inMergeQueue: true } }) }),
      'final',
      'stale',
      /in the merge queue again/,
    ],
    [
      'a one-parent group commit: the re-run, with why',
      facts({ group: group({ parents: [BASE] }) }),
      'rerun',
      undefined,
      /squash or rebase/,
    ],
    [
      'no such commit: the re-run, with why',
      facts({ group: group({ parents: null }) }),
      'rerun',
      undefined,
      /knows no commit/,
    ],
    ['then the loop guard is asked', facts({ group: group() }), 'need'],
    [
      'the head queued again max_requeues times: attempt_cap',
      facts({ group: group(), claim: 'cap' }),
      'final',
      'attempt_cap',
      /max_requeues 1/,
    ],
    ['the group already handled: duplicate', facts({ group: group(), claim: 'group_handled' }), 'final', 'duplicate'],
    ['claimed: the mutation', facts({ group: group(), claim: 'claimed' }), 'enqueue'],
    [
      'accepted: requeued',
      facts({ group: group(), claim: 'claimed', answer: { accepted: true } }),
      'final',
      'requeued',
      /lost to infrastructure: test; pull request #42 queued again with head 2222222/,
    ],
    [
      'refused: the re-run, with the refusal',
      facts({ group: group(), claim: 'claimed', answer: { accepted: false, refusal: 'UNPROCESSABLE: not mergeable' } }),
      'rerun',
      undefined,
      /enqueuePullRequest refused: UNPROCESSABLE: not mergeable; re-ran instead/,
    ],
  ])('%s', (_rule, f, kind, decision, reason) => {
    const step = decideRequeue(f);
    expect(step.kind).toBe(kind);
    if (decision) expect(step).toMatchObject({ decision });
    if (reason) expect(step.kind === 'rerun' ? step.note : step.kind === 'final' ? step.reason : '').toMatch(reason);
  });

  it('asks for the group, then the claim, then sends with the tested head and never jumps the queue', () => {
    expect(decideRequeue(facts())).toEqual({ kind: 'need', what: 'group' });
    expect(decideRequeue(facts({ group: group() }))).toEqual({ kind: 'need', what: 'claim' });
    expect(decideRequeue(facts({ group: group(), claim: 'claimed' }))).toEqual({
      kind: 'enqueue',
      pullRequest: 42,
      pullRequestId: 'PR_42',
      expectedHeadOid: HEAD,
    });
  });
});

describe('merge_queue and max_requeues in .github/reprise.yml', () => {
  it('reads each value, and leaves the defaults (requeue, 1) when absent', () => {
    expect(parseRepoConfig(BUILT_IN_DEFAULTS, 'merge_queue: rerun\nmax_requeues: 3\n')).toMatchObject({
      config: { mergeQueue: 'rerun', maxRequeues: 3 },
    });
    expect(parseRepoConfig(BUILT_IN_DEFAULTS, 'merge_queue: off\n').config.mergeQueue).toBe('off');
    const none = parseRepoConfig(BUILT_IN_DEFAULTS, 'max_attempts: 2\n').config;
    expect([mergeQueueMode(none), maxRequeues(none)]).toEqual(['requeue', 1]);
  });

  it.each([
    ['merge_queue: sometimes\n', /merge_queue: expected one of requeue, rerun, off/],
    ['max_requeues: 0\n', /max_requeues: expected a whole number from 1 to 10/],
    ['max_requeues: 11\n', /max_requeues/],
  ])('a bad value (%s) is a configuration error that names the key, and the file fails closed', (text, message) => {
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, text);
    expect(res.error).toMatch(message);
    // Nothing in the file narrows re-runs: its runs are left alone until it is fixed.
    expect(res.config.enabled).toBe(false);
  });

  it('merge_queue: off beside a broken key still holds: leaving merge-group runs alone only narrows', () => {
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, 'merge_queue: off\nmax_attempts: many\n');
    expect(res.error).toMatch(/max_attempts/);
    expect(res.config).toMatchObject({ enabled: true, mergeQueue: 'off' });
  });
});

describe("GitHub's merge_group webhook example (@octokit/webhooks-examples)", () => {
  interface Group {
    name: string;
    examples: { merge_group?: { head_ref: string; head_sha: string; base_sha: string } }[];
  }
  const example = (examples as unknown as Group[]).find((g) => g.name === 'merge_group')?.examples[0]?.merge_group;

  it('has a head ref the branch rule reads: the pull request number and a sha', () => {
    expect(example).toBeDefined();
    expect(parseMergeGroupBranch(example!.head_ref)).toEqual({
      base: 'main',
      pullRequest: 104,
      sha: '929f8209d40f77f4abc622a499c93a83babdbe64',
    });
  });

  it("cannot settle what the branch's sha is: it is neither the group's head nor its base, so the head is read from the commit", () => {
    const { sha } = parseMergeGroupBranch(example!.head_ref)!;
    expect(sha).not.toBe(example!.head_sha);
    expect(sha).not.toBe(example!.base_sha);
  });
});
