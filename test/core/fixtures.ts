/**
 * Small factories for the pure core's tests: jobs, annotations, signals, run messages, run
 * facts, verdicts and configuration. Every factory takes overrides, so a row says only what
 * matters to its rule.
 */
import type { AnnotationEvidence, JobEvidence, LogEvidence } from '../../lib/classify/classify-job.js';
import { BUILT_IN_DEFAULTS, type RepoConfig } from '../../lib/config/repo-config.js';
import type {
  Annotation,
  EvidenceSource,
  JobFacts,
  JobVerdict,
  RunFacts,
  RunMessage,
  RunnerSignal,
  SignalKind,
  Verdict,
} from '../../lib/model.js';

// ---------------------------------------------------------------------------------------------
// Evidence strings of DESIGN §2, verbatim.
// ---------------------------------------------------------------------------------------------

const LOST_TAIL =
  'lost communication with the server. Verify the machine is running and has a healthy network connection. ' +
  'Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its ' +
  'network access can cause this error.';

export const TEXT = {
  selfHostedNamed: (name = 'runs-on--i-062dfa0123456789a') => `The self-hosted runner: ${name} ${LOST_TAIL}`,
  selfHostedUnnamed: `The self-hosted runner ${LOST_TAIL}`,
  selfHostedEmptyName: `The self-hosted runner: ${LOST_TAIL}`,
  hosted: `The hosted runner ${LOST_TAIL}`,
  shutdown:
    'The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.',
  echo: 'The operation was canceled.',
  exitCode: (code = 1) => `Process completed with exit code ${code}.`,
  timeoutJob: 'The job has exceeded the maximum execution time of 1h0m0s',
  timeoutRunner: 'The job running on runner X has exceeded the maximum execution time of 360 minutes.',
  person: 'The run was canceled by @octocat.',
  concurrency: "Canceling since a higher priority waiting request for 'ci-refs/heads/main' exists",
  failFast: 'The strategy configuration was canceled because "test._linux_3" failed',
} as const;

/** The five runner-loss variants of DESIGN §2 with the built-in pattern expected to match each. */
export const LOSS_TEXTS: readonly (readonly [label: string, text: string, pattern: string])[] = [
  ['named self-hosted runner', TEXT.selfHostedNamed(), 'self-hosted-lost'],
  ['unnamed self-hosted runner', TEXT.selfHostedUnnamed, 'self-hosted-lost'],
  ['self-hosted runner with an empty name', TEXT.selfHostedEmptyName, 'self-hosted-lost'],
  ['hosted runner', TEXT.hosted, 'hosted-lost'],
  ['runner shutdown signal', TEXT.shutdown, 'shutdown-signal'],
];

// ---------------------------------------------------------------------------------------------
// Jobs, annotations, signals, evidence
// ---------------------------------------------------------------------------------------------

let nextJobId = 1000;

export function job(over: Partial<JobFacts> = {}): JobFacts {
  const id = over.id ?? nextJobId++;
  return {
    id,
    nodeId: `CR_kwDO${id}`,
    name: `job-${id}`,
    status: 'completed',
    conclusion: 'failure',
    runnerName: 'runner-i-0abc1234def567890',
    completedAt: '2026-10-02T16:15:06Z',
    runAttempt: 1,
    ...over,
  };
}

export const failedJob = (over: Partial<JobFacts> = {}): JobFacts => job({ conclusion: 'failure', ...over });
export const cancelledJob = (over: Partial<JobFacts> = {}): JobFacts => job({ conclusion: 'cancelled', ...over });

export const ann = (message: string, level = 'failure', title: string | null = null): Annotation => ({
  level,
  title,
  message,
});

export const signal = (kind: SignalKind, over: Partial<RunnerSignal> = {}): RunnerSignal => ({
  runnerKey: 'i-0abc1234def567890',
  kind,
  eventTime: '2026-10-02T16:13:00Z',
  instanceId: 'i-0abc1234def567890',
  source: kind === 'external' ? 'node-termination-handler' : 'eventbridge',
  ...over,
});

export const unavailable = (status: 403 | 404 | 410): AnnotationEvidence => ({ unavailable: status });

export const logErrors = (...errors: string[]): LogEvidence => ({ errors });

export function evidence(
  annotations: AnnotationEvidence = [],
  over: { signals?: readonly RunnerSignal[]; log?: LogEvidence } = {},
): JobEvidence {
  return { signals: over.signals ?? [], annotations, ...(over.log !== undefined && { log: over.log }) };
}

// ---------------------------------------------------------------------------------------------
// Run message, run facts, configuration, verdicts
// ---------------------------------------------------------------------------------------------

export function runMessage(over: Partial<RunMessage> = {}): RunMessage {
  return {
    v: 1,
    deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    installationId: 42,
    repository: { id: 7, owner: 'acme', name: 'widgets' },
    runId: 9001,
    runAttempt: 1,
    workflow: { id: 11, name: 'CI', path: '.github/workflows/ci.yml' },
    event: 'push',
    headSha: 'c0ffee0123456789abcdef0123456789abcdef01',
    headBranch: 'main',
    conclusion: 'failure',
    pullRequests: [],
    createdAt: '2026-10-02T16:00:00Z',
    ...over,
  };
}

export function runFacts(over: Partial<RunFacts> = {}): RunFacts {
  return {
    id: 9001,
    status: 'completed',
    conclusion: 'failure',
    runAttempt: 1,
    event: 'push',
    headSha: 'c0ffee0123456789abcdef0123456789abcdef01',
    headBranch: 'main',
    workflowId: 11,
    createdAt: '2026-10-02T16:00:00Z',
    ...over,
  };
}

export const config = (over: Partial<RepoConfig> = {}): RepoConfig => ({ ...BUILT_IN_DEFAULTS, ...over });

export function jobVerdict(
  j: JobFacts,
  verdict: Verdict,
  source: EvidenceSource = 'annotations',
  over: Partial<JobVerdict> = {},
): JobVerdict {
  return { job: j, verdict, source, evidence: `${verdict} evidence`, ...over };
}

/** Freezes an object graph so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value as object)) {
      deepFreeze((value as Record<string | symbol, unknown>)[key]);
    }
  }
  return value;
}
