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
import { TEXT } from '../support/evidence.js';

// ---------------------------------------------------------------------------------------------
// Runner-loss texts and the pattern each must match
// ---------------------------------------------------------------------------------------------

/** The five runner-loss texts with the built-in pattern expected to match each. */
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
