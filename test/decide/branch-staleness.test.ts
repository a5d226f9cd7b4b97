import { describe, expect, it } from 'vitest';
import {
  type BranchAnswer,
  type BranchRun,
  branchRule,
  fromListed,
  fromNewestRecorded,
  isBranchEvent,
} from '../../lib/decide/branch-staleness.js';
import { config, runMessage } from '../support/fixtures.js';

const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);
const run = (runId: number, runNumber: number, headSha = SHA_A): BranchRun => ({ runId, runNumber, headSha });

/** The run being decided: number 10 of its workflow, commit A. */
const self = run(100, 10);

describe('item 3: the newest recorded run of the branch answers, one row per rule', () => {
  it.each<{ rule: string; newest: BranchRun | undefined; by: 'another_commit' | 'any_newer'; answer: BranchAnswer }>([
    { rule: 'nothing recorded: list', newest: undefined, by: 'another_commit', answer: { kind: 'list' } },
    {
      rule: 'the record is older than the run (its events came after): list',
      newest: run(90, 9, SHA_B),
      by: 'another_commit',
      answer: { kind: 'list' },
    },
    { rule: 'the run is the branch head: current', newest: self, by: 'another_commit', answer: { kind: 'current' } },
    {
      rule: 'a newer run for another commit: stale',
      newest: run(110, 11, SHA_B),
      by: 'another_commit',
      answer: { kind: 'stale', newer: run(110, 11, SHA_B) },
    },
    {
      rule: 'a newer run of the same commit (a re-trigger; another commit may lie between): list',
      newest: run(110, 11, SHA_A),
      by: 'another_commit',
      answer: { kind: 'list' },
    },
    {
      rule: 'stale_check all: a newer run of the same commit is stale too',
      newest: run(110, 11, SHA_A),
      by: 'any_newer',
      answer: { kind: 'stale', newer: run(110, 11, SHA_A) },
    },
  ])('$rule', ({ newest, by, answer }) => {
    expect(fromNewestRecorded(self, newest, by)).toEqual(answer);
  });
});

describe('item 3: one listing answers when the record cannot, one row per rule', () => {
  it.each<{ rule: string; listed: BranchRun[]; by: 'another_commit' | 'any_newer'; answer: BranchAnswer }>([
    { rule: 'only the run itself: current', listed: [self], by: 'another_commit', answer: { kind: 'current' } },
    {
      rule: 'older runs only: current',
      listed: [run(80, 8, SHA_B), self],
      by: 'another_commit',
      answer: { kind: 'current' },
    },
    {
      rule: 'a newer run of the same commit, then one of another commit between: stale by the other commit',
      listed: [run(120, 12, SHA_A), run(110, 11, SHA_B), self],
      by: 'another_commit',
      answer: { kind: 'stale', newer: run(110, 11, SHA_B) },
    },
    {
      rule: 'several newer runs: the newest names it',
      listed: [run(110, 11, SHA_B), run(130, 13, SHA_B), self],
      by: 'another_commit',
      answer: { kind: 'stale', newer: run(130, 13, SHA_B) },
    },
    {
      rule: 'a newer run of the same commit alone: current by branch, stale by all',
      listed: [run(110, 11, SHA_A), self],
      by: 'another_commit',
      answer: { kind: 'current' },
    },
  ])('$rule', ({ listed, by, answer }) => {
    expect(fromListed(self, listed, by)).toEqual(answer);
  });

  it('stale_check all: a newer run of the same commit alone is stale', () => {
    expect(fromListed(self, [run(110, 11, SHA_A), self], 'any_newer')).toEqual({
      kind: 'stale',
      newer: run(110, 11, SHA_A),
    });
  });
});

describe('item 3: which runs the branch rule covers', () => {
  it.each([
    ['push', true],
    ['schedule', true],
    ['workflow_dispatch', true],
    ['repository_dispatch', true],
    ['pull_request', false],
    ['pull_request_target', false],
    ['merge_group', false],
  ] as const)('a %s run is a branch run: %s', (event, branch) => {
    expect(isBranchEvent(event)).toBe(branch);
  });

  it.each([
    ['branch', 'push', 'main', 'another_commit'],
    ['branch', 'merge_group', 'gh-readonly-queue/main/pr-1-abc', undefined],
    ['branch', 'pull_request', 'feature', undefined],
    ['branch', 'push', null, undefined],
    ['pull_request', 'push', 'main', undefined],
    ['off', 'push', 'main', undefined],
    ['all', 'push', 'main', 'any_newer'],
    ['all', 'merge_group', 'gh-readonly-queue/main/pr-1-abc', 'any_newer'],
  ] as const)('stale_check %s, a %s run on %s → %s', (staleCheck, event, headBranch, rule) => {
    expect(branchRule(config({ staleCheck }), runMessage({ event, headBranch }))).toBe(rule);
  });
});
