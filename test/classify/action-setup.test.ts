/**
 * GitHub's setup-time failures: a job that died resolving or downloading its actions because
 * GitHub's action service answered with a server error is `platform` evidence; its genuine
 * look-alikes (an action or version that is not there, a private action, a policy, the job's own
 * network or certificates) stay genuine. Texts as the runner writes them (actions/runner
 * ActionManager.cs) and as public threads quote them (test/fixtures/real-reports names each).
 */
import { describe, expect, it } from 'vitest';
import { ACTION_SETUP_PATTERNS, readActionSetup } from '../../lib/classify/action-setup.js';
import { classifyJob, type JobEvidence } from '../../lib/classify/classify-job.js';
import { ScanBudget } from '../../lib/classify/scan-budget.js';
import { decide, type DecisionFacts } from '../../lib/decide/decide.js';
import type { Annotation, RepoConfig } from '../../lib/model.js';
import {
  ann,
  cancelledJob,
  config,
  evidence,
  failedJob,
  job,
  logErrors,
  runFacts,
  runMessage,
} from '../support/fixtures.js';

const meter = () => new ScanBudget().window();

const RESOLVE = 'Failed to resolve action download info.';
const S503 = 'Response status code does not indicate success: 503 (Service Unavailable).';
const S500 = 'Response status code does not indicate success: 500 (Internal Server Error).';
const S404 = 'Response status code does not indicate success: 404 (Not Found).';
const TARBALL = 'https://api.github.com/repos/actions/checkout/tarball/7884fcad6b5d53d10323aee724dc68d8b9096a2e';
const warn503 = `Failed to download action '${TARBALL}'. Error: ${S503}`;
/** The 2020 runner wrote no colon after "Error". */
const warn500Old = `Failed to download action '${TARBALL}'. Error ${S500}`;
const warn404 = `Failed to download action '${TARBALL}'. Error: ${S404}`;
const archive = (url = TARBALL) => `Failed to download archive '${url}' after 3 attempts.`;

interface Row {
  readonly rule: string;
  readonly failures: readonly string[];
  readonly warnings?: readonly string[];
  readonly want: 'action-resolve' | 'action-download' | undefined;
}

const ROWS: readonly Row[] = [
  { rule: 'resolution retries ran out (every runner since 2020)', failures: [RESOLVE], want: 'action-resolve' },
  { rule: 'the sentence twice, as the run page lists it', failures: [RESOLVE, RESOLVE], want: 'action-resolve' },
  {
    rule: 'runner 2.333+: the cause on its own line before the sentence',
    failures: ['Service Unavailable', RESOLVE],
    want: 'action-resolve',
  },
  {
    rule: 'runner 2.333+: a timeout reaching the resolution service',
    failures: ['The HTTP request timed out after 00:01:40.', RESOLVE],
    want: 'action-resolve',
  },
  { rule: 'runner 2.333+: a download answered 503', failures: [S503, archive()], want: 'action-download' },
  {
    rule: 'before 2.333: the bare 503 with the runner’s download warnings',
    failures: [S503],
    warnings: [warn503, 'Back off 16.547 seconds before retry.', warn503],
    want: 'action-download',
  },
  {
    rule: 'before 2.333: the 2020 wording without a colon, a 500',
    failures: [S500],
    warnings: [warn500Old],
    want: 'action-download',
  },
  {
    rule: 'a missing version is the action’s own: no family',
    failures: ['Unable to resolve action `guilouro/multiple-repositories-dispatch@v1`, unable to find version `v1`'],
    want: undefined,
  },
  {
    rule: 'a missing repository: no family',
    failures: ['Unable to resolve action. Repository not found: supabase/setup-cli'],
    want: undefined,
  },
  {
    rule: 'a policy that does not allow the action: no family',
    failures: [
      'Bad request - freertos/ci-cd-github-actions@main is not allowed to be used in aws/aws-iot-device-sdk-embedded-C.',
    ],
    want: undefined,
  },
  {
    rule: 'a private action answered 404: no family',
    failures: [S404],
    warnings: [warn404, warn404],
    want: undefined,
  },
  {
    rule: 'runner 2.333+: a download answered 400: no family',
    failures: ['Response status code does not indicate success: 400 (Bad Request).', archive()],
    want: undefined,
  },
  {
    rule: 'the job’s own TLS: no family',
    failures: ['The SSL connection could not be established, see inner exception.'],
    warnings: [
      `Failed to download action '${TARBALL}'. Error: The SSL connection could not be established, see inner exception.`,
    ],
    want: undefined,
  },
  {
    rule: 'the archive wrapper with no server error beside it: no family',
    failures: ['Connection refused (api.github.com:443)', archive()],
    want: undefined,
  },
  { rule: 'a step’s own 503 without a download warning: no family', failures: [S503], want: undefined },
  {
    rule: 'a step’s own 503 beside an unrelated warning: no family',
    failures: [S503],
    warnings: ['Node.js 16 actions are deprecated.'],
    want: undefined,
  },
  {
    rule: 'the runner’s download warnings beside another failure: no family',
    failures: ['3 tests failed'],
    warnings: [warn503],
    want: undefined,
  },
  {
    rule: 'the sentence inside a step’s longer text: no family',
    failures: [`retrying: ${RESOLVE}`],
    want: undefined,
  },
  {
    rule: 'a server error alone, no setup sentence: no family',
    failures: ['Service Unavailable'],
    want: undefined,
  },
];

describe('the action setup family is read over a job’s texts together', () => {
  it.each(ROWS.map((r) => [r.rule, r] as const))('%s', (_rule, r) => {
    expect(readActionSetup(r.failures, r.warnings ?? [], meter()).platform).toBe(r.want);
  });

  it('case does not matter', () => {
    for (const t of [RESOLVE.toLowerCase(), RESOLVE.toUpperCase()]) {
      expect(readActionSetup([t], [], meter()).platform).toBe('action-resolve');
    }
  });

  it('the family accounts for its companion texts, and only for them', () => {
    const r = readActionSetup(['Service Unavailable', RESOLVE, 'FAIL src/a.test.ts'], [], meter());
    expect([...r.consumed].sort()).toEqual([0, 1]);
  });

  it('names every pattern of the family once', () => {
    expect(ACTION_SETUP_PATTERNS.map((p) => p.name)).toEqual([
      'action-resolve',
      'action-download',
      'action-download-warning',
      'action-server-error',
      'action-resolve-timeout',
    ]);
  });
});

const annotations = (failures: readonly string[], warnings: readonly string[] = []): Annotation[] => [
  ...warnings.map((w) => ann(w, 'warning')),
  ...failures.map((f) => ann(f)),
];

describe('the classifier judges the family by its own source, `platform`', () => {
  it.each(ROWS.filter((r) => r.want).map((r) => [r.rule, r] as const))('%s: infra, platform', (_rule, r) => {
    const c = classifyJob(failedJob(), evidence(annotations(r.failures, r.warnings)), []);
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'infra', source: 'platform' } });
  });

  it.each(ROWS.filter((r) => !r.want).map((r) => [r.rule, r] as const))('%s: never infra', (_rule, r) => {
    const job = failedJob();
    const first = classifyJob(job, evidence(annotations(r.failures, r.warnings)), []);
    const c =
      first.kind === 'verdict'
        ? first
        : classifyJob(job, { ...evidence(annotations(r.failures, r.warnings)), log: logErrors() }, []);
    expect(c.kind === 'verdict' && c.verdict.verdict).not.toBe('infra');
  });

  it('from the job log: the cause and the sentence as `##[error]` lines (runner 2.333+)', () => {
    const ev: JobEvidence = { signals: [], annotations: [], log: logErrors('Service Unavailable', RESOLVE) };
    const c = classifyJob(failedJob(), ev, []);
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'infra', source: 'platform' } });
  });

  it('a cancelled job whose log holds the sentence behind the echo: infra, platform', () => {
    const ev: JobEvidence = {
      signals: [],
      annotations: [ann('The operation was canceled.')],
      log: logErrors(RESOLVE, 'The operation was canceled.'),
    };
    const c = classifyJob(cancelledJob(), ev, []);
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'infra', source: 'platform' } });
  });

  it('an exit code beside the sentence is genuine', () => {
    const c = classifyJob(failedJob(), evidence([ann(RESOLVE), ann('Process completed with exit code 1.')]), []);
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'genuine' } });
  });

  it('another failure beside the sentence is genuine', () => {
    const c = classifyJob(failedJob(), evidence([ann(RESOLVE), ann('3 tests failed')]), []);
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'genuine' } });
  });

  it('the evidence names the family', () => {
    const c = classifyJob(failedJob(), evidence([ann(S503), ann(archive())]), []);
    expect(c.kind === 'verdict' && c.verdict.evidence).toBe('platform action-download');
  });
});

describe('platform_errors turns the family off with the rest of the platform family', () => {
  const lost = failedJob({ id: 1, name: 'build' });
  const passed = job({ id: 5, name: 'lint', conclusion: 'success' });
  const facts = (cfg: Partial<RepoConfig>): DecisionFacts => {
    const c = classifyJob(lost, evidence([ann('Service Unavailable'), ann(RESOLVE)]), []);
    if (c.kind !== 'verdict') throw new Error('no verdict');
    return {
      message: runMessage(),
      config: config(cfg),
      run: runFacts(),
      stale: {},
      budget: { limit: 0, used: 0 },
      jobs: [passed, lost],
      verdicts: [c.verdict],
      breaker: { openUntil: null, outcomes: 0, lostAgain: 0, windowMs: 1_800_000 },
    };
  };

  it('platform_errors absent: the run is re-run as text evidence', () => {
    expect(decide(facts({}))).toMatchObject({ kind: 'rerun', evidence: 'text' });
  });

  it('platform_errors: leave: the run is left alone', () => {
    expect(decide(facts({ platformErrors: 'leave' }))).toMatchObject({ kind: 'final', decision: 'no_infra_evidence' });
  });
});
