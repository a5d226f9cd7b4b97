import { exactSignals } from '../classify/exact-signals.js';
import type { EarlyRecovery, JobFacts, JobVerdict, RepoConfig, RunnerSignal } from '../model.js';

/** Whether a run whose runner is proven gone is ended early: `off` unless the settings say otherwise. */
export const earlyRecoveryMode = (cfg: RepoConfig): EarlyRecovery => cfg.earlyRecovery ?? 'off';

/**
 * A spot interruption warning comes two minutes before EC2 stops the instance: a job may still
 * finish in them, so the warning proves the loss only once they have passed.
 */
export const SPOT_WARNING_LEAD_MS = 120_000;

/** When one signal proves its runner gone: a spot warning two minutes after it, an exact end at once. */
export const provenAt = (s: RunnerSignal): number =>
  Date.parse(s.eventTime) + (s.kind === 'spot-interruption' ? SPOT_WARNING_LEAD_MS : 0);

/** The earliest time the exact signals of one runner prove it gone; undefined when none is exact. */
export function lossProvenAt(signals: readonly RunnerSignal[]): number | undefined {
  const times = exactSignals(signals).map(provenAt);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** The time of the loss itself: the earliest exact signal's event time, which the time to recovery counts from. */
export function lossAt(signals: readonly RunnerSignal[]): string | undefined {
  const times = exactSignals(signals).map((s) => Date.parse(s.eventTime));
  return times.length > 0 ? new Date(Math.min(...times)).toISOString() : undefined;
}

/** Everything the early-recovery decision depends on, read while the run is still in progress. */
export interface RecoveryFacts {
  readonly mode: EarlyRecovery;
  readonly dryRun: boolean;
  readonly now: number;
  /** The run as GitHub reports it now. */
  readonly run: { readonly status: string; readonly runAttempt: number };
  /** Why a re-run would join a newer run or a moved-on pull request, when it would. */
  readonly stale?: string;
  /** reprise already ended (or tried to end) this attempt: never a second time. */
  readonly alreadyEnded?: boolean;
  /** The jobs of the run's current attempt. */
  readonly jobs: readonly JobFacts[];
  /** The job the request names, and the runner a signal proved gone under it. */
  readonly request: { readonly jobId: number; readonly runnerName: string };
  /** For each runner of a running job that has an exact signal: when that signal proves it gone. */
  readonly provenGone: ReadonlyMap<string, number>;
}

/** What early recovery does with a run, and why. */
export type RecoveryStep =
  | { readonly kind: 'leave'; readonly outcome: RecoveryLeave; readonly reason: string }
  /** A spot warning whose two minutes have not passed: look again then. */
  | { readonly kind: 'wait_for_proof'; readonly untilMs: number; readonly reason: string }
  /** `last_job`: a healthy job still runs; its completion brings the run back here. */
  | { readonly kind: 'wait_for_siblings'; readonly running: readonly string[]; readonly reason: string }
  | {
      readonly kind: 'end_run';
      readonly reason: string;
      /** The running jobs whose runners are proven gone. */
      readonly lost: readonly JobFacts[];
      /** Every other job the end cancels (running healthy ones with `now`, queued ones), re-run with the lost. */
      readonly alsoEnded: readonly JobFacts[];
    };

/** Why a request ends with nothing sent. */
export type RecoveryLeave =
  'off' | 'run_completed' | 'stale' | 'already_ended' | 'job_ended' | 'not_proven' | 'dry_run';

const leave = (outcome: RecoveryLeave, reason: string): RecoveryStep => ({ kind: 'leave', outcome, reason });
const names = (jobs: readonly JobFacts[]): string => jobs.map((j) => `"${j.name}"`).join(', ');

/**
 * Whether to end a run before GitHub's job lease runs out. Pure: the caller reads the run, its
 * jobs and the signals of their runners, then acts on the step. Checks in a fixed order
 * (docs/design.md, "Early recovery"): the setting, the run, staleness, an earlier end, the proof
 * for the job named, then the healthy jobs still running.
 */
export function decideRecovery(f: RecoveryFacts): RecoveryStep {
  if (f.mode === 'off') return leave('off', 'early_recovery is off');
  if (f.run.status === 'completed') return leave('run_completed', 'the run has completed: its completion decides it');
  if (f.stale) return leave('stale', `superseded, never ended: ${f.stale}`);
  if (f.alreadyEnded) return leave('already_ended', `attempt ${f.run.runAttempt} was already ended by reprise`);

  const named = f.jobs.find((j) => j.id === f.request.jobId);
  if (!named || named.status === 'completed' || named.runAttempt !== f.run.runAttempt) {
    return leave('job_ended', `job ${f.request.jobId} is no longer running: a runner gone after its job is no reason`);
  }
  if (named.runnerName !== f.request.runnerName) {
    return leave(
      'job_ended',
      `job "${named.name}" now runs on ${named.runnerName ?? 'no runner'}, not on the runner lost`,
    );
  }

  const open = f.jobs.filter((j) => j.status !== 'completed');
  const running = open.filter((j) => j.status === 'in_progress' && j.runnerName);
  const provenFor = (j: JobFacts): number | undefined => f.provenGone.get(j.runnerName ?? '');
  const lost = running.filter((j) => (provenFor(j) ?? Infinity) <= f.now);
  const namedAt = provenFor(named);
  if (namedAt === undefined) return leave('not_proven', `no exact signal proves the runner of "${named.name}" gone`);
  if (namedAt > f.now) {
    return {
      kind: 'wait_for_proof',
      untilMs: namedAt,
      reason: `the spot warning for the runner of "${named.name}" leaves it until ${new Date(namedAt).toISOString()}`,
    };
  }
  const healthy = running.filter((j) => !lost.includes(j));
  const queued = open.filter((j) => !running.includes(j));
  if (f.mode === 'last_job' && healthy.length > 0) {
    return {
      kind: 'wait_for_siblings',
      running: healthy.map((j) => j.name),
      reason: `${names(lost)} lost; waiting for ${names(healthy)} to end (a re-run is refused until the run ends)`,
    };
  }
  const alsoEnded = [...healthy, ...queued];
  const others = alsoEnded.length > 0 ? `; also ended and re-run: ${names(alsoEnded)}` : '';
  const reason = `${names(lost)} on a runner proven gone (early_recovery ${f.mode})${others}`;
  if (f.dryRun) return leave('dry_run', `would end the run: ${reason}`);
  return { kind: 'end_run', reason, lost, alsoEnded };
}

/** How fast a lost run came back, from the loss an exact signal recorded. */
export interface RecoveryTiming {
  /** The loss: the earliest exact signal of the lost jobs (ISO). */
  readonly lostAt: string;
  /** reprise ended the run before GitHub failed the job (early recovery). */
  readonly early: boolean;
  /** From the loss to the re-run GitHub accepted; null without a re-run. */
  readonly secondsToRerun: number | null;
  /** Without early recovery: how long after the loss GitHub failed the lost job (its lease); what turning it on saves. */
  readonly secondsWaitedForGitHub: number | null;
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/**
 * The time to recovery of a decision whose lost jobs carry an exact signal; undefined when none
 * does (text evidence has no moment of loss to count from).
 */
export function recoveryTiming(
  verdicts: readonly JobVerdict[],
  decidedAtMs: number,
  rerun: boolean,
  endedEarly: boolean,
): RecoveryTiming | undefined {
  const lost = verdicts.filter((v) => v.verdict === 'infra' && v.lostAt);
  if (lost.length === 0) return undefined;
  const lostMs = Math.min(...lost.map((v) => Date.parse(v.lostAt!)));
  const failedAt = lost.map((v) => (v.job.completedAt ? Date.parse(v.job.completedAt) : NaN)).filter((t) => t > 0);
  return {
    lostAt: new Date(lostMs).toISOString(),
    early: endedEarly,
    secondsToRerun: rerun ? seconds(decidedAtMs - lostMs) : null,
    secondsWaitedForGitHub: endedEarly || failedAt.length === 0 ? null : seconds(Math.max(...failedAt) - lostMs),
  };
}
