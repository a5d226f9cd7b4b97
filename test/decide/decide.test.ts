import { describe, expect, it } from 'vitest';
import type { RepoConfig } from '../../lib/config/repo-config.js';
import {
  candidateJobs,
  decide,
  staleCheckApplies,
  type DecisionFacts,
  type DecisionStep,
} from '../../lib/decide/decide.js';
import { afterRerun } from '../../lib/decide/rerun-outcome.js';
import type { DecisionKind, JobFacts, JobVerdict, RunMessage } from '../../lib/model.js';
import {
  cancelledJob,
  config,
  deepFreeze,
  failedJob,
  job,
  jobVerdict,
  runFacts,
  runMessage,
} from '../support/fixtures.js';

const lost = failedJob({ id: 1, name: 'test (1)' });
const lostCancelled = cancelledJob({ id: 2, name: 'test (2)' });
const broken = failedJob({ id: 3, name: 'unit' });
const sibling = cancelledJob({ id: 4, name: 'test (4)' });
const passed = job({ id: 5, name: 'build', conclusion: 'success' });

const infraText = (j: JobFacts = lost): JobVerdict => jobVerdict(j, 'infra', 'annotations');
const infraSignal = (j: JobFacts = lost): JobVerdict => jobVerdict(j, 'infra', 'signal');
const prMessage = (over: Partial<RunMessage> = {}): RunMessage =>
  runMessage({ event: 'pull_request', headBranch: 'feature', pullRequests: [12], ...over });

/** The same jobs, listed for a later attempt. */
const atAttempt = (jobs: readonly JobFacts[], runAttempt: number): JobFacts[] =>
  jobs.map((j) => ({ ...j, runAttempt }));

const CLOSED = { openUntil: null, outcomes: 0, lostAgain: 0, windowMs: 1_800_000 } as const;

/**
 * Every fact gathered for a push run with one job lost to infrastructure, the head of its branch
 * (its staleness checked and clean); rows override what their rule needs.
 */
function facts(over: Partial<DecisionFacts> & { cfg?: Partial<RepoConfig>; attempt?: number } = {}): DecisionFacts {
  const { cfg, attempt, ...rest } = over;
  const message = rest.message ?? runMessage({ runAttempt: attempt ?? 1 });
  return {
    message,
    config: config(cfg),
    run: runFacts({ runAttempt: message.runAttempt, event: message.event }),
    budget: { limit: 0, used: 0 },
    jobs: atAttempt([passed, lost], message.runAttempt),
    verdicts: [infraText()],
    breaker: CLOSED,
    ...(staleCheckApplies(config(cfg), message) && { stale: {} }),
    ...rest,
  };
}

const outcome = (step: DecisionStep): DecisionKind | 'rerun' | 'wait' | `need ${string}` =>
  step.kind === 'final' ? step.decision : step.kind === 'need' ? `need ${step.what}` : step.kind;

interface Row {
  readonly rule: string;
  readonly facts: DecisionFacts;
  readonly expected: DecisionKind | 'rerun';
  readonly reason?: string | RegExp;
}

const runRows = (rows: readonly Row[]): void => {
  it.each(rows)('$rule → $expected', ({ facts: f, expected, reason }) => {
    const step = decide(f);
    expect(outcome(step)).toBe(expected);
    if (reason !== undefined) {
      expect(step.kind === 'need' ? '' : step.reason).toMatch(reason);
    }
  });
};

describe('decisions per run attempt, one row each', () => {
  describe('ignored', () => {
    runRows([
      {
        rule: 'the repository is not in the deployment allow-list',
        facts: facts({ repositoryAllowed: false }),
        expected: 'ignored',
        reason: /allow-list/,
      },
      {
        rule: 'the configuration turns reprise off (enabled: false)',
        facts: facts({ cfg: { enabled: false } }),
        expected: 'ignored',
        reason: /enabled: false/,
      },
      {
        rule: 'the workflow is not listed in workflows',
        facts: facts({ cfg: { workflows: ['Release', 'Nightly'] } }),
        expected: 'ignored',
        reason: /"CI" is not listed/,
      },
      {
        rule: 'a listed workflow is covered',
        facts: facts({ cfg: { workflows: ['Release', 'CI'] } }),
        expected: 'rerun',
      },
      { rule: 'an allowed repository is covered', facts: facts({ repositoryAllowed: true }), expected: 'rerun' },
    ]);
  });

  describe('run_incomplete', () => {
    runRows([
      {
        rule: 'the run is in progress',
        facts: facts({ run: runFacts({ status: 'in_progress', conclusion: null }) }),
        expected: 'run_incomplete',
        reason: /in_progress/,
      },
      {
        rule: 'the run is queued',
        facts: facts({ run: runFacts({ status: 'queued', conclusion: null }) }),
        expected: 'run_incomplete',
      },
    ]);
  });

  describe('stale (pull-request runs, and branch runs by default)', () => {
    runRows([
      {
        rule: 'a newer run exists for the same workflow and head',
        facts: facts({ message: prMessage(), stale: { newerRunId: 9002 } }),
        expected: 'stale',
        reason: /newer run 9002/,
      },
      {
        rule: 'the pull request is closed',
        facts: facts({ message: prMessage(), stale: { pullRequestClosed: 12 } }),
        expected: 'stale',
        reason: /#12 is closed/,
      },
      {
        rule: 'the pull request head moved on',
        facts: facts({ message: prMessage(), stale: { pullRequestMovedOn: 12 } }),
        expected: 'stale',
        reason: /#12 head moved past c0ffee0/,
      },
      {
        rule: 'a fresh pull request run is not stale',
        facts: facts({ message: prMessage(), stale: {} }),
        expected: 'rerun',
      },
      {
        rule: 'item 3: a push run superseded by a newer commit’s run on its branch is stale (the default, branch)',
        facts: facts({ stale: { newerRunId: 9002, newerOnBranch: { branch: 'main', headSha: 'deadbeef'.repeat(5) } } }),
        expected: 'stale',
        reason: /newer run 9002 of the same workflow on branch main is for commit deadbee: re-running c0ffee0/,
      },
      {
        rule: 'item 3: a push run at the head of its branch is re-run',
        facts: facts({ stale: {} }),
        expected: 'rerun',
      },
      ...(['schedule', 'workflow_dispatch', 'release', 'workflow_run'] as const).map((event) => ({
        rule: `item 3: a ${event} run on a branch is checked by default`,
        facts: facts({ message: runMessage({ event }), stale: { newerRunId: 9002 } }),
        expected: 'stale' as const,
      })),
      {
        rule: 'item 3: a merge-group run is not checked by the branch rule (it has its own)',
        facts: facts({ message: runMessage({ event: 'merge_group' }), stale: { newerRunId: 9002 } }),
        expected: 'rerun',
      },
      {
        rule: 'item 3: a run without a head branch (a tag push) is not checked by the branch rule',
        facts: facts({ message: runMessage({ headBranch: null }), stale: { newerRunId: 9002 } }),
        expected: 'rerun',
      },
      {
        rule: 'stale_check: pull_request does not check a push run (stale facts are not consulted)',
        facts: facts({ cfg: { staleCheck: 'pull_request' }, stale: { newerRunId: 9002 } }),
        expected: 'rerun',
      },
      {
        rule: 'stale_check: pull_request still checks a pull_request run',
        facts: facts({ message: prMessage(), cfg: { staleCheck: 'pull_request' }, stale: { pullRequestClosed: 12 } }),
        expected: 'stale',
      },
      {
        rule: 'stale_check: all checks a push run',
        facts: facts({ cfg: { staleCheck: 'all' }, stale: { newerRunId: 9002 } }),
        expected: 'stale',
      },
      {
        rule: 'stale_check: all checks a merge-group run too',
        facts: facts({
          message: runMessage({ event: 'merge_group' }),
          cfg: { staleCheck: 'all' },
          stale: { newerRunId: 9002 },
        }),
        expected: 'stale',
      },
      {
        rule: 'stale_check: off skips the check for a push run',
        facts: facts({ cfg: { staleCheck: 'off' }, stale: { newerRunId: 9002 } }),
        expected: 'rerun',
      },
      {
        rule: 'stale_check: off skips the check for a pull_request run',
        facts: facts({ message: prMessage(), cfg: { staleCheck: 'off' }, stale: { pullRequestClosed: 12 } }),
        expected: 'rerun',
      },
    ]);
  });

  describe('attempt_cap', () => {
    runRows([
      {
        rule: 'run_attempt reached max_attempts (exact signal)',
        facts: facts({ attempt: 3, verdicts: [infraSignal()] }),
        expected: 'attempt_cap',
        reason: /max_attempts 3/,
      },
      {
        rule: 'run_attempt past max_attempts',
        facts: facts({ attempt: 4, cfg: { maxAttempts: 3 } }),
        expected: 'attempt_cap',
      },
      {
        rule: 'a configured max_attempts of 5 allows attempt 4 with an exact signal',
        facts: facts({ attempt: 4, cfg: { maxAttempts: 5, textOnlyMaxAttempts: 2 }, verdicts: [infraSignal()] }),
        expected: 'rerun',
      },
      {
        rule: 'below the cap with an exact signal: re-run',
        facts: facts({ attempt: 2, verdicts: [infraSignal()] }),
        expected: 'rerun',
      },
      {
        rule: 'text-only evidence at text_only_max_attempts: the lower cap',
        facts: facts({ attempt: 2, verdicts: [infraText()] }),
        expected: 'attempt_cap',
        reason: /text_only_max_attempts 2/,
      },
      {
        rule: 'text-only evidence below the lower cap: re-run',
        facts: facts({ attempt: 1, verdicts: [infraText()] }),
        expected: 'rerun',
      },
      {
        rule: 'one exact signal among text verdicts lifts the lower cap',
        facts: facts({
          attempt: 2,
          jobs: atAttempt([lost, lostCancelled], 2),
          verdicts: [infraText(lost), infraSignal(lostCancelled)],
        }),
        expected: 'rerun',
      },
    ]);
  });

  describe('budget_exhausted', () => {
    runRows([
      {
        rule: 'the installation’s budget is spent exactly',
        facts: facts({ budget: { limit: 10, used: 10 } }),
        expected: 'budget_exhausted',
        reason: /10 of 10/,
      },
      {
        rule: 'the installation’s budget is overspent',
        facts: facts({ budget: { limit: 10, used: 12 } }),
        expected: 'budget_exhausted',
      },
      { rule: 'budget left: re-run', facts: facts({ budget: { limit: 10, used: 9 } }), expected: 'rerun' },
      {
        rule: 'a limit of 0 means no budget is configured',
        facts: facts({ budget: { limit: 0, used: 500 } }),
        expected: 'rerun',
      },
    ]);
  });

  describe('no_candidate_jobs', () => {
    runRows([
      {
        rule: 'nothing failed or was cancelled',
        facts: facts({ jobs: [passed, job({ conclusion: 'skipped' })] }),
        expected: 'no_candidate_jobs',
      },
      {
        rule: 'only jobs of an earlier attempt failed',
        facts: facts({ attempt: 2, jobs: [passed, failedJob({ runAttempt: 1 })], verdicts: [] }),
        expected: 'no_candidate_jobs',
      },
      {
        rule: 'every failed job is ignored by ignore_jobs',
        facts: facts({ jobs: [passed, failedJob({ name: 'all-green' })], cfg: { ignoreJobs: ['all-*'] } }),
        expected: 'no_candidate_jobs',
      },
      { rule: 'an attempt with no jobs at all', facts: facts({ jobs: [] }), expected: 'no_candidate_jobs' },
    ]);
  });

  describe('vetoed', () => {
    runRows([
      {
        rule: 'a person cancelled the run',
        facts: facts({
          jobs: [lostCancelled],
          verdicts: [jobVerdict(lostCancelled, 'vetoed', 'annotations', { veto: 'person' })],
        }),
        expected: 'vetoed',
        reason: /a person cancelled/,
      },
      {
        rule: 'concurrency superseded the run',
        facts: facts({
          jobs: [lostCancelled],
          verdicts: [jobVerdict(lostCancelled, 'vetoed', 'annotations', { veto: 'concurrency' })],
        }),
        expected: 'vetoed',
        reason: /concurrency/,
      },
      {
        rule: 'a person’s cancellation vetoes the whole run, even beside a lost job',
        facts: facts({
          jobs: [lost, lostCancelled],
          verdicts: [infraSignal(lost), jobVerdict(lostCancelled, 'vetoed', 'annotations', { veto: 'person' })],
        }),
        expected: 'vetoed',
      },
    ]);
  });

  describe('genuine_failure', () => {
    runRows([
      {
        rule: 'one genuine verdict',
        facts: facts({ jobs: [broken], verdicts: [jobVerdict(broken, 'genuine')] }),
        expected: 'genuine_failure',
        reason: /"unit" failed for a real reason/,
      },
      {
        rule: 'a genuine failure beside a lost job (AC3)',
        facts: facts({ jobs: [lost, broken], verdicts: [infraSignal(lost), jobVerdict(broken, 'genuine')] }),
        expected: 'genuine_failure',
      },
      {
        rule: 'a timeout is the workflow author’s: genuine_failure',
        facts: facts({ jobs: [broken], verdicts: [jobVerdict(broken, 'vetoed', 'annotations', { veto: 'timeout' })] }),
        expected: 'genuine_failure',
        reason: /timed out/,
      },
      {
        rule: 'a genuine failure beside fail-fast siblings',
        facts: facts({
          jobs: [broken, sibling],
          verdicts: [jobVerdict(broken, 'genuine'), jobVerdict(sibling, 'inconclusive')],
        }),
        expected: 'genuine_failure',
      },
    ]);
  });

  describe('no_infra_evidence', () => {
    runRows([
      {
        rule: 'only inconclusive verdicts (the warning names extra_patterns)',
        facts: facts({ jobs: [sibling], verdicts: [jobVerdict(sibling, 'inconclusive')] }),
        expected: 'no_infra_evidence',
        reason: /extra_patterns/,
      },
      { rule: 'no verdicts at all for the candidates', facts: facts({ verdicts: [] }), expected: 'no_infra_evidence' },
      {
        rule: 'a job cut short by the work budget beside an exact signal: the run is left alone',
        facts: facts({
          jobs: [passed, lost, broken],
          verdicts: [infraSignal(), jobVerdict(broken, 'inconclusive', 'logs', { cutShort: true })],
        }),
        expected: 'no_infra_evidence',
        reason: /job "unit": .*left alone/,
      },
      {
        rule: 'require_exact_signal with text evidence only',
        facts: facts({ cfg: { requireExactSignal: true }, verdicts: [infraText()] }),
        expected: 'no_infra_evidence',
        reason: /require_exact_signal/,
      },
      {
        rule: 'require_exact_signal with an exact signal: re-run',
        facts: facts({ cfg: { requireExactSignal: true }, verdicts: [infraSignal()] }),
        expected: 'rerun',
      },
    ]);
  });

  describe('dry_run', () => {
    runRows([
      {
        rule: 'would re-run, configured not to',
        facts: facts({ cfg: { dryRun: true } }),
        expected: 'dry_run',
        reason: /would re-run: 1 job\(s\) lost to infrastructure: test \(1\)/,
      },
    ]);
  });

  describe('re-run (then retried / retried_all / rerun_rejected through afterRerun)', () => {
    runRows([
      {
        rule: 'a lost job (AC1)',
        facts: facts(),
        expected: 'rerun',
        reason: /1 job\(s\) lost to infrastructure: test \(1\)/,
      },
      {
        rule: 'a lost job with a fail-fast cancelled sibling',
        facts: facts({ jobs: [lost, sibling], verdicts: [infraText(lost), jobVerdict(sibling, 'inconclusive')] }),
        expected: 'rerun',
      },
    ]);

    it.each([
      ['a failed candidate', [lost, sibling], false],
      ['cancelled candidates only', [lostCancelled, sibling], true],
    ] as const)('the rerun step says whether every candidate was cancelled: %s', (_label, jobs, cancelledOnly) => {
      const step = decide(facts({ jobs: [passed, ...jobs], verdicts: [infraSignal(jobs[0])] }));
      expect(step).toMatchObject({ kind: 'rerun', cancelledOnly, evidence: 'exact' });
    });

    it('the rerun step says the evidence was text', () => {
      expect(decide(facts())).toMatchObject({ kind: 'rerun', cancelledOnly: false, evidence: 'text' });
    });

    it('a re-run accepted by GitHub is retried', () => {
      const f = facts();
      const step = decide(f);
      if (step.kind !== 'rerun') throw new Error(`expected a rerun step, got ${outcome(step)}`);
      const cands = candidateJobs(f.jobs ?? [], f.message, f.config);
      const next = afterRerun({ call: 'failed_jobs', accepted: true }, cands, step.cancelledOnly, f.config);
      expect(next).toMatchObject({ kind: 'final', decision: 'retried' });
    });
  });

  describe('duplicate', () => {
    runRows([
      {
        rule: 'the run’s attempt moved past the event’s (someone re-ran it)',
        facts: facts({ run: runFacts({ runAttempt: 2 }) }),
        expected: 'duplicate',
        reason: /already re-run: the run is at attempt 2/,
      },
      {
        rule: 'the attempt moved past the event’s and the new attempt is still running',
        facts: facts({ run: runFacts({ runAttempt: 2, status: 'in_progress' }) }),
        expected: 'duplicate',
      },
    ]);
  });
});

describe('the order of checks: each rule wins over the ones after it', () => {
  runRows([
    {
      rule: 'ignored before anything about the run (not even the run is needed)',
      facts: { message: runMessage(), config: config({ enabled: false }) },
      expected: 'ignored',
    },
    {
      rule: 'ignored before run_incomplete',
      facts: facts({ repositoryAllowed: false, run: runFacts({ status: 'in_progress' }) }),
      expected: 'ignored',
    },
    {
      rule: 'run_incomplete before stale',
      facts: facts({
        message: prMessage(),
        run: runFacts({ status: 'in_progress', event: 'pull_request' }),
        stale: { pullRequestClosed: 12 },
      }),
      expected: 'run_incomplete',
    },
    {
      rule: 'stale before attempt_cap',
      facts: facts({ message: prMessage({ runAttempt: 3 }), stale: { newerRunId: 9002 } }),
      expected: 'stale',
    },
    {
      rule: 'attempt_cap before budget_exhausted',
      facts: facts({ attempt: 3, budget: { limit: 1, used: 1 } }),
      expected: 'attempt_cap',
    },
    {
      rule: 'a run at the cap with a genuine failure is attempt_cap',
      facts: facts({ attempt: 3, jobs: [broken], verdicts: [jobVerdict(broken, 'genuine')] }),
      expected: 'attempt_cap',
    },
    {
      rule: 'budget_exhausted before no_candidate_jobs',
      facts: facts({ budget: { limit: 1, used: 1 }, jobs: [passed] }),
      expected: 'budget_exhausted',
    },
    {
      rule: 'no_candidate_jobs before any verdict',
      facts: { ...facts({ jobs: [passed] }), verdicts: undefined },
      expected: 'no_candidate_jobs',
    },
    {
      rule: 'vetoed before genuine_failure',
      facts: facts({
        jobs: [broken, lostCancelled],
        verdicts: [
          jobVerdict(broken, 'genuine'),
          jobVerdict(lostCancelled, 'vetoed', 'annotations', { veto: 'concurrency' }),
        ],
      }),
      expected: 'vetoed',
    },
    {
      rule: 'genuine_failure before no_infra_evidence',
      facts: facts({
        jobs: [broken, sibling],
        verdicts: [jobVerdict(sibling, 'inconclusive'), jobVerdict(broken, 'genuine')],
      }),
      expected: 'genuine_failure',
    },
    {
      rule: 'no_infra_evidence before dry_run',
      facts: facts({ cfg: { dryRun: true }, jobs: [sibling], verdicts: [jobVerdict(sibling, 'inconclusive')] }),
      expected: 'no_infra_evidence',
    },
    {
      rule: 'the text-only cap before dry_run',
      facts: facts({ attempt: 2, cfg: { dryRun: true }, verdicts: [infraText()] }),
      expected: 'attempt_cap',
    },
    {
      rule: 'duplicate before run_incomplete',
      facts: facts({ run: runFacts({ runAttempt: 3, status: 'queued' }) }),
      expected: 'duplicate',
    },
  ]);
});

describe('decide names the next fact it needs, and only the facts a decision uses', () => {
  const base = (message: RunMessage = runMessage()): DecisionFacts => ({ message, config: config() });

  it.each([
    ['no run yet', base(), 'need run'],
    [
      'a pull_request run without staleness facts',
      { ...base(prMessage()), run: runFacts({ event: 'pull_request' }) },
      'need stale',
    ],
    ['a push run needs staleness by default', { ...base(), run: runFacts() }, 'need stale'],
    [
      'stale_check: pull_request: a push run skips staleness and needs the budget',
      { ...base(), config: config({ staleCheck: 'pull_request' }), run: runFacts() },
      'need budget',
    ],
    [
      'stale_check: all needs staleness for a push run',
      { ...base(), config: config({ staleCheck: 'all' }), run: runFacts() },
      'need stale',
    ],
    ['staleness gathered: the budget next', { ...base(prMessage()), run: runFacts(), stale: {} }, 'need budget'],
    [
      'budget gathered: the jobs next',
      { ...base(), run: runFacts(), stale: {}, budget: { limit: 0, used: 0 } },
      'need jobs',
    ],
    [
      'candidates found: their verdicts next',
      { ...base(), run: runFacts(), stale: {}, budget: { limit: 0, used: 0 }, jobs: [lost] },
      'need verdicts',
    ],
  ] as const)('%s → %s', (_label, f, need) => {
    expect(outcome(decide(f))).toBe(need);
  });

  it.each([
    ['ignored', { ...facts({ cfg: { enabled: false } }), run: undefined }],
    ['duplicate', { ...facts({ run: runFacts({ runAttempt: 2 }) }) }],
    ['run_incomplete', { ...facts({ run: runFacts({ status: 'in_progress' }) }) }],
    ['stale', { ...facts({ message: prMessage(), stale: { pullRequestClosed: 12 } }) }],
    ['attempt_cap', { ...facts({ attempt: 3 }) }],
    ['budget_exhausted', { ...facts({ budget: { limit: 2, used: 2 } }) }],
  ] as const)('%s is decided without budget, jobs or verdicts where it needs none', (decision, full) => {
    const { jobs: _j, verdicts: _v, ...withoutJobs } = full;
    const f: DecisionFacts = decision === 'budget_exhausted' ? withoutJobs : { ...withoutJobs, budget: undefined };
    expect(outcome(decide(f))).toBe(decision);
  });

  it.each([
    ['a push run', runMessage(), ['run', 'stale', 'budget', 'jobs', 'verdicts', 'breaker']],
    ['a merge-group run', runMessage({ event: 'merge_group' }), ['run', 'budget', 'jobs', 'verdicts', 'breaker']],
    ['a pull_request run', prMessage(), ['run', 'stale', 'budget', 'jobs', 'verdicts', 'breaker']],
  ] as const)('gathering facts one by one for %s asks in order and ends in a rerun', (_label, message, expected) => {
    const all = facts({ message });
    let f: DecisionFacts = { message: all.message, config: all.config };
    const asked: string[] = [];
    for (let i = 0; i < 10; i++) {
      const step = decide(f);
      if (step.kind !== 'need') {
        expect(step.kind).toBe('rerun');
        break;
      }
      asked.push(step.what);
      f = { ...f, [step.what]: all[step.what] };
    }
    expect(asked).toEqual(expected);
  });
});

describe('candidateJobs: failed and cancelled jobs of the finished attempt, minus ignore_jobs (AC4)', () => {
  const msg = runMessage({ runAttempt: 2 });
  const jobs: JobFacts[] = [
    job({ id: 10, name: 'build', conclusion: 'success', runAttempt: 2 }),
    job({ id: 11, name: 'test (1)', conclusion: 'failure', runAttempt: 2 }),
    job({ id: 12, name: 'test (2)', conclusion: 'cancelled', runAttempt: 2 }),
    job({ id: 13, name: 'docs', conclusion: 'skipped', runAttempt: 2 }),
    job({ id: 14, name: 'neutral', conclusion: 'neutral', runAttempt: 2 }),
    job({ id: 15, name: 'slow', conclusion: 'timed_out', runAttempt: 2 }),
    job({ id: 16, name: 'gate', conclusion: 'action_required', runAttempt: 2 }),
    job({ id: 17, name: 'pending', conclusion: null, status: 'in_progress', runAttempt: 2 }),
    job({ id: 18, name: 'test (1)', conclusion: 'failure', runAttempt: 1 }),
    job({ id: 19, name: 'All-Green', conclusion: 'failure', runAttempt: 2 }),
    job({ id: 20, name: 'lint (windows-latest, 20)', conclusion: 'cancelled', runAttempt: 2 }),
  ];

  it('only failure and cancelled of the attempt just finished', () => {
    expect(candidateJobs(jobs, msg, config()).map((j) => j.id)).toEqual([11, 12, 19, 20]);
  });

  it.each([
    ['an exact name', ['all-green'], [11, 12, 20]],
    ['a prefix glob', ['lint*'], [11, 12, 19]],
    ['a glob across a matrix name with parentheses', ['lint (windows-*'], [11, 12, 19]],
    ['a glob with a star in the middle', ['test (*)'], [19, 20]],
    ['several globs', ['all-green', 'lint*'], [11, 12]],
    ['a glob that matches nothing', ['deploy*'], [11, 12, 19, 20]],
  ] as const)('ignore_jobs with %s', (_label, ignoreJobs, ids) => {
    expect(candidateJobs(jobs, msg, config({ ignoreJobs })).map((j) => j.id)).toEqual(ids);
  });
});

describe('staleCheckApplies', () => {
  it.each([
    ['pull_request', 'pull_request', true],
    ['pull_request', 'push', false],
    ['pull_request', 'schedule', false],
    ['branch', 'pull_request', true],
    ['branch', 'pull_request_target', true],
    ['branch', 'push', true],
    ['branch', 'schedule', true],
    ['branch', 'workflow_dispatch', true],
    ['branch', 'merge_group', false],
    ['all', 'merge_group', true],
    ['all', 'push', true],
    ['all', 'pull_request', true],
    ['off', 'pull_request', false],
    ['off', 'push', false],
  ] as const)('stale_check %s on a %s run → %s', (staleCheck, event, applies) => {
    expect(staleCheckApplies(config({ staleCheck }), runMessage({ event }))).toBe(applies);
  });
});

describe('decide is pure', () => {
  it.each([
    ['a re-run', facts()],
    ['a genuine failure', facts({ jobs: [broken], verdicts: [jobVerdict(broken, 'genuine')] })],
    ['a partial set of facts', { message: prMessage(), config: config(), run: runFacts() }],
    [
      'a vetoed pull_request run',
      facts({
        message: prMessage(),
        jobs: [lostCancelled],
        verdicts: [jobVerdict(lostCancelled, 'vetoed', 'annotations', { veto: 'person' })],
      }),
    ],
  ])('%s: the same frozen facts give the same result twice', (_label, f) => {
    const snapshot = structuredClone(f);
    const frozen = deepFreeze(f);
    const first = decide(frozen);
    const second = decide(frozen);
    expect(second).toEqual(first);
    expect(frozen).toEqual(snapshot);
  });

  it('candidateJobs leaves its input untouched', () => {
    const jobs = deepFreeze([passed, lost, sibling]);
    expect(candidateJobs(jobs, runMessage(), deepFreeze(config({ ignoreJobs: ['x*'] })))).toEqual([lost, sibling]);
  });
});
