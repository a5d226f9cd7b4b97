/**
 * GitHub's own platform failures as their own evidence family: the patterns that recognise them
 * (and the neighbours they must not), the classifier's `platform` source, the decision with
 * `platform_errors: rerun|leave`, the text-only cap, a broken repository file that only narrows,
 * and how the family shows in the event and the check run. One table per rule.
 */
import { describe, expect, it } from 'vitest';
import { classifyJob } from '../../lib/classify/classify-job.js';
import { matchLoss, matchPlatform, PLATFORM_PATTERNS } from '../../lib/classify/patterns.js';
import { BUILT_IN_DEFAULTS, parseRepoConfig } from '../../lib/config/repo-config.js';
import { decide, type DecisionFacts, type DecisionStep } from '../../lib/decide/decide.js';
import { decisionEvent } from '../../lib/events/build.js';
import { jobTableMarkdown } from '../../lib/github/report.js';
import type { EvidenceSource, JobVerdict, RepoConfig, Verdict } from '../../lib/model.js';
import { errorLine, TEXT } from '../support/evidence.js';
import {
  ann,
  cancelledJob,
  config,
  evidence,
  failedJob,
  job,
  jobVerdict,
  logErrors,
  runFacts,
  runMessage,
} from '../support/fixtures.js';

/** Each as GitHub wrote it in a public report (test/fixtures/real-reports/reports.json names the address). */
const PLATFORM_TEXTS: readonly (readonly [name: string, text: string])[] = [
  ['not-acquired', 'The job was not acquired by Runner of type hosted even after multiple attempts'],
  ['not-acquired', 'The job was not acquired by Runner of type hosted even after multiple attempts.'],
  ['internal-error', 'GitHub Actions has encountered an internal error when running your job.'],
  ['internal-error', 'Github Actions has encountered an internal error when running your job.'],
  ['internal-server-error', 'Internal server error. Correlation ID: 79b9a27c-24a5-41cb-b9af-7f4a788e3b2a'],
  ['hosted-error', 'The hosted runner encountered an error while running your job. (Error Type: Disconnect).'],
  ['provisioning', 'An error occurred while provisioning resources (Error Type: Disconnect).'],
  ['provisioning', 'An error occurred while provisioning resources (Error Type: Failure)'],
  [
    'provision-message',
    'There was a failure in sending the provision message: Unexpected response code from remote provider BadRequest',
  ],
  ['deprovisioned', 'Received request to deprovision: The request was cancelled by the remote provider.'],
];

describe("GitHub's platform failures match a platform pattern, case-insensitively, and no runner-loss one", () => {
  it.each(PLATFORM_TEXTS)('%s: %s', (name, text) => {
    for (const t of [text, text.toLowerCase(), text.toUpperCase()]) expect(matchPlatform(t)).toBe(name);
    expect(matchLoss(text, [])).toBeUndefined();
  });

  it.each(PLATFORM_TEXTS.filter(([n]) => n !== 'internal-server-error'))('%s matches as a job-log line', (n, text) => {
    expect(matchPlatform(errorLine(text))).toBe(n);
  });

  it('the table names each family once', () => {
    expect(PLATFORM_PATTERNS.map((p) => p.name)).toEqual([
      'not-acquired',
      'internal-error',
      'internal-server-error',
      'hosted-error',
      'provisioning',
      'provision-message',
      'deprovisioned',
    ]);
  });
});

describe('genuine-looking neighbours are no platform failure', () => {
  it.each([
    ['a step’s own 500', 'Error: Response status code does not indicate success: 500 (Internal Server Error).'],
    [
      'an internal server error inside a step’s sentence',
      'Error: Internal server error. Correlation ID: 79b9a27c-24a5-41cb-b9af-7f4a788e3b2a',
    ],
    ['an internal server error without a correlation id', 'Internal server error.'],
    ['a correlation id that is no id', 'Internal server error. Correlation ID: see the logs'],
    ['a test that says "internal error"', 'FAIL test/api.test.ts > reports an internal error when running the job'],
    ['a disconnect in a test', 'Error: The hosted runner encountered an error while running your job'],
    ['a deploy that was cancelled', 'The request was cancelled by the remote provider.'],
    ['a provisioning step’s own message', 'Error: failed to send the provision message to the device'],
    ['the echo', TEXT.echo],
    ['an exit code', TEXT.exitCode(1)],
    ['a disk full', 'System.IO.IOException: No space left on device'],
    [
      'no runners online',
      'This request was automatically failed because there were no enabled runners online to process the request for more than 1 days.',
    ],
    [
      'a deprecated runner',
      'An error occured: Error: Forbidden Runner version v2.316.1 is deprecated and cannot receive messages.',
    ],
  ])('%s', (_what, text) => {
    expect(matchPlatform(text)).toBeUndefined();
  });
});

const NOT_ACQUIRED = PLATFORM_TEXTS[0]![1];
const INTERNAL = PLATFORM_TEXTS[2]![1];
const DISCONNECT = PLATFORM_TEXTS[5]![1];

describe('the classifier judges a platform failure infra by its own source, `platform`', () => {
  const rows: {
    rule: string;
    job: ReturnType<typeof failedJob>;
    ev: ReturnType<typeof evidence>;
    verdict: Verdict;
    source: EvidenceSource;
  }[] = [
    {
      rule: 'a failed job with a platform annotation',
      job: failedJob(),
      ev: evidence([ann(INTERNAL)]),
      verdict: 'infra',
      source: 'platform',
    },
    {
      rule: 'a cancelled job with a platform annotation',
      job: cancelledJob(),
      ev: evidence([ann(NOT_ACQUIRED)]),
      verdict: 'infra',
      source: 'platform',
    },
    {
      rule: 'a failed job whose log reports the disconnect',
      job: failedJob(),
      ev: evidence([], { log: logErrors(DISCONNECT) }),
      verdict: 'infra',
      source: 'platform',
    },
    {
      rule: 'a platform annotation beside an exit code is genuine',
      job: failedJob(),
      ev: evidence([ann(TEXT.exitCode(1)), ann(INTERNAL)]),
      verdict: 'genuine',
      source: 'annotations',
    },
    {
      rule: 'a platform annotation beside another real failure is genuine',
      job: failedJob(),
      ev: evidence([ann('Tests failed: 3 of 120'), ann(INTERNAL)]),
      verdict: 'genuine',
      source: 'annotations',
    },
    {
      rule: 'a runner-loss annotation beside a platform one keeps the runner-loss source',
      job: failedJob(),
      ev: evidence([ann(INTERNAL), ann(TEXT.hosted)]),
      verdict: 'infra',
      source: 'annotations',
    },
    {
      rule: 'a person’s cancellation beside a platform annotation is a veto',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.person), ann(NOT_ACQUIRED)]),
      verdict: 'vetoed',
      source: 'annotations',
    },
  ];
  it.each(rows)('$rule → $verdict ($source)', ({ job: j, ev, verdict, source }) => {
    const c = classifyJob(j, ev, []);
    expect(c.kind).toBe('verdict');
    if (c.kind !== 'verdict') return;
    expect({ verdict: c.verdict.verdict, source: c.verdict.source }).toEqual({ verdict, source });
  });
});

const lost = failedJob({ id: 1, name: 'build' });
const passed = job({ id: 5, name: 'lint', conclusion: 'success' });
const CLOSED = { openUntil: null, outcomes: 0, lostAgain: 0, windowMs: 1_800_000 } as const;
const onPlatform = (j = lost): JobVerdict => jobVerdict(j, 'infra', 'platform', { evidence: 'platform not-acquired' });

function facts(verdicts: readonly JobVerdict[], cfg: Partial<RepoConfig> = {}, attempt = 1): DecisionFacts {
  const message = runMessage({ runAttempt: attempt });
  return {
    message,
    config: config(cfg),
    run: runFacts({ runAttempt: attempt }),
    // The run is its branch's head: no newer run superseded it.
    stale: {},
    budget: { limit: 0, used: 0 },
    jobs: [passed, lost].map((j) => ({ ...j, runAttempt: attempt })),
    verdicts,
    breaker: CLOSED,
  };
}

const outcome = (s: DecisionStep): string =>
  s.kind === 'final' ? s.decision : s.kind === 'rerun' ? `rerun (${s.evidence})` : s.kind;

describe('the decision on a platform failure, with platform_errors', () => {
  it.each([
    {
      rule: 'platform_errors absent (rerun): re-run as text evidence',
      v: [onPlatform()],
      cfg: {},
      want: 'rerun (text)',
    },
    { rule: 'platform_errors: rerun', v: [onPlatform()], cfg: { platformErrors: 'rerun' }, want: 'rerun (text)' },
    {
      rule: 'platform_errors: leave leaves the run alone',
      v: [onPlatform()],
      cfg: { platformErrors: 'leave' },
      want: 'no_infra_evidence',
    },
    {
      rule: 'platform_errors: leave also holds when another job lost its runner',
      v: [onPlatform(), jobVerdict(failedJob({ id: 2, name: 'test' }), 'infra', 'annotations')],
      cfg: { platformErrors: 'leave' },
      want: 'no_infra_evidence',
    },
    {
      rule: 'platform_errors: leave changes nothing for a runner lost without a platform failure',
      v: [jobVerdict(lost, 'infra', 'annotations')],
      cfg: { platformErrors: 'leave' },
      want: 'rerun (text)',
    },
    {
      rule: 'a genuine failure beside the platform failure wins',
      v: [onPlatform(), jobVerdict(failedJob({ id: 2, name: 'test' }), 'genuine', 'annotations')],
      cfg: {},
      want: 'genuine_failure',
    },
    {
      rule: 'require_exact_signal: platform text alone never re-runs',
      v: [onPlatform()],
      cfg: { requireExactSignal: true },
      want: 'no_infra_evidence',
    },
  ] as const)('$rule → $want', ({ v, cfg, want }) => {
    expect(outcome(decide(facts(v, cfg as Partial<RepoConfig>)))).toBe(want);
  });

  it('the text-only attempt cap applies: attempt 2 of text_only_max_attempts 2 is attempt_cap', () => {
    expect(outcome(decide(facts([onPlatform()], { textOnlyMaxAttempts: 2 }, 2)))).toBe('attempt_cap');
    expect(outcome(decide(facts([onPlatform()], { textOnlyMaxAttempts: 3 }, 2)))).toBe('rerun (text)');
  });

  it('the reasons say it was a GitHub platform failure, and that platform_errors left it', () => {
    const rerun = decide(facts([onPlatform()]));
    expect(rerun.kind === 'rerun' && rerun.reason).toBe(
      '1 job(s) lost to infrastructure: build (GitHub platform failure: platform not-acquired)',
    );
    const left = decide(facts([onPlatform()], { platformErrors: 'leave' }));
    expect(left.kind === 'final' && left.reason).toBe(
      'job "build" hit a GitHub platform failure (platform not-acquired) and platform_errors is leave',
    );
  });
});

describe('platform_errors in .github/reprise.yml fails closed', () => {
  const leaveBase: RepoConfig = { ...BUILT_IN_DEFAULTS, platformErrors: 'leave' };
  it.each([
    {
      rule: 'a valid file sets leave',
      base: BUILT_IN_DEFAULTS,
      text: 'platform_errors: leave\n',
      want: 'leave',
      error: false,
    },
    {
      rule: 'a valid file sets rerun over a leave default',
      base: leaveBase,
      text: 'platform_errors: rerun\n',
      want: 'rerun',
      error: false,
    },
    {
      rule: 'a broken file keeps leave: it narrows',
      base: BUILT_IN_DEFAULTS,
      text: 'platform_errors: leave\nbogus: 1\n',
      want: 'leave',
      error: true,
    },
    {
      rule: 'a broken file never widens a leave default to rerun',
      base: leaveBase,
      text: 'platform_errors: rerun\nbogus: 1\n',
      want: 'leave',
      error: true,
    },
    {
      rule: 'an unknown value is an error naming the key',
      base: BUILT_IN_DEFAULTS,
      text: 'platform_errors: sometimes\n',
      want: undefined,
      error: true,
    },
  ] as const)('$rule', ({ base, text, want, error }) => {
    const res = parseRepoConfig(base, text);
    expect(res.error !== undefined).toBe(error);
    if (res.error) expect(res.error).toMatch(/platform_errors|bogus/);
    expect(res.config.platformErrors).toBe(want);
  });
});

describe('the platform family shows in the event and the check run', () => {
  const verdicts = [onPlatform(), jobVerdict(failedJob({ id: 2, name: 'test' }), 'infra', 'annotations')];

  it('the decision event lists each evidence family of the lost jobs once', () => {
    const e = decisionEvent(
      runMessage(),
      { decision: 'retried', reason: 'r', verdicts: [...verdicts, onPlatform()] },
      0,
    );
    expect(e.lost_job_evidence).toEqual(['platform', 'annotations']);
  });

  it('the check run’s job table names the platform source', () => {
    expect(jobTableMarkdown([onPlatform()])).toContain('| infra | platform: platform not-acquired |');
  });
});
