import { CLEANUP_LINE } from '../support/evidence.js';
import { iso, nodeId } from './ids.js';
import type { SimAttempt, SimJob, SimJobSpec, SimRerunOutcome, SimStatus } from './types.js';

/** What building jobs needs from the model. */
export interface JobFactory {
  nextId(kind: 'job'): number;
  repoId(repo: string): number;
  defaultRunnerName(): string;
}

/** The group every organisation's runners are in unless an admin made others. */
export const DEFAULT_RUNNER_GROUP = 'Default';

export type RunConclusion = 'success' | 'failure' | 'cancelled' | null;

/** Any failure wins, then cancelled; a run with a job still open has no conclusion. */
export function deriveConclusion(jobs: readonly { conclusion: SimJob['conclusion'] }[]): RunConclusion {
  if (jobs.some((j) => j.conclusion === null)) return null;
  if (jobs.some((j) => j.conclusion === 'failure' || j.conclusion === 'timed_out')) return 'failure';
  if (jobs.some((j) => j.conclusion === 'cancelled')) return 'cancelled';
  return 'success';
}

/** A neutral log: it names the steps but carries no error line, so it never decides a verdict by itself. */
export function defaultLog(spec: SimJobSpec, completedAt: string): string {
  const t = completedAt.replace('Z', '.0000000Z');
  return [
    `${t} Current runner version: '2.329.0'`,
    `${t} Runner name: '${spec.runnerName ?? ''}'`,
    `${t} ##[group]Run actions/checkout@v4`,
    `${t} ##[endgroup]`,
    `${t} ##[group]Run make test`,
    `${t} ok  	example/pkg	0.012s`,
    `${t} ##[endgroup]`,
    `${t} ${CLEANUP_LINE}`,
    '',
  ].join('\n');
}

export function buildJob(
  f: JobFactory,
  spec: SimJobSpec,
  at: { repo: string; runId: number; attempt: number; createdAt: string; completedAt: string },
): SimJob {
  const id = f.nextId('job');
  const status: SimStatus = spec.status ?? (spec.conclusion === null ? 'in_progress' : 'completed');
  const completed = status === 'completed';
  const completedAt = completed ? (spec.completedAt ?? at.completedAt) : null;
  const runnerName =
    spec.runnerName !== undefined ? spec.runnerName : status === 'queued' ? null : f.defaultRunnerName();
  const started = spec.startedAt ? Date.parse(spec.startedAt) : Date.parse(at.createdAt) + 4000;
  const startedAt = iso(completedAt ? Math.min(started, Date.parse(completedAt)) : started);
  const runnerGroup = spec.runnerGroup !== undefined ? spec.runnerGroup : runnerName ? DEFAULT_RUNNER_GROUP : null;
  const resolved: SimJobSpec = { ...spec, runnerName, runnerGroup };
  return {
    id,
    nodeId: nodeId('CR', f.repoId(at.repo), id),
    runId: at.runId,
    runAttempt: at.attempt,
    name: spec.name,
    status,
    conclusion: completed ? spec.conclusion : null,
    runnerName,
    runnerGroup,
    labels: spec.labels ?? ['self-hosted', 'linux', 'x64'],
    needs: spec.needs ?? [],
    createdAt: at.createdAt,
    startedAt,
    completedAt,
    annotations: spec.annotations ?? [],
    log: spec.log === undefined ? defaultLog(resolved, completedAt ?? startedAt) : spec.log,
    spec: resolved,
  };
}

/** One workflow run and all its attempts: the live object tests inspect and adjust. */
export class SimRun {
  readonly attempts: SimAttempt[] = [];

  constructor(
    readonly id: number,
    readonly repo: string,
    readonly nodeId: string,
    readonly workflowName: string,
    readonly workflowPath: string,
    readonly workflowId: number,
    readonly runNumber: number,
    readonly checkSuiteId: number,
    public event: string,
    public headSha: string,
    public headBranch: string | null,
    public createdAt: string,
    public pullRequests: number[],
    public onRerun: SimRerunOutcome,
  ) {}

  get runAttempt(): number {
    return this.attempts.length;
  }

  get latest(): SimAttempt {
    const a = this.attempts[this.attempts.length - 1];
    if (!a) throw new Error(`run ${this.id} has no attempt`);
    return a;
  }

  get status(): SimStatus {
    return this.latest.status;
  }

  set status(s: SimStatus) {
    this.latest.status = s;
  }

  get conclusion(): RunConclusion {
    return this.latest.conclusion;
  }

  set conclusion(c: RunConclusion) {
    this.latest.conclusion = c;
  }

  get updatedAt(): string {
    return this.latest.updatedAt;
  }

  /** Jobs of the latest attempt. */
  get jobs(): SimJob[] {
    return this.latest.jobs;
  }

  attempt(n: number): SimAttempt | undefined {
    return this.attempts[n - 1];
  }

  jobsOf(n: number): SimJob[] {
    return this.attempt(n)?.jobs ?? [];
  }

  job(name: string, attempt = this.runAttempt): SimJob | undefined {
    return this.jobsOf(attempt).find((j) => j.name === name);
  }

  /**
   * Finishes the latest attempt: open jobs conclude per `outcomes` (by job name; default success) and the run
   * completes with the derived conclusion.
   */
  complete(outcomes: Record<string, Partial<SimJobSpec>> = {}, at = iso(Date.now())): void {
    const attempt = this.latest;
    for (const job of attempt.jobs) {
      if (job.status === 'completed' && !outcomes[job.name]) continue;
      const o = outcomes[job.name] ?? {};
      job.status = 'completed';
      job.conclusion = o.conclusion !== undefined ? o.conclusion : (job.conclusion ?? 'success');
      job.completedAt = o.completedAt ?? at;
      if (o.runnerName !== undefined) job.runnerName = o.runnerName;
      if (o.runnerGroup !== undefined) job.runnerGroup = o.runnerGroup;
      else if (job.runnerName && job.runnerGroup === null) job.runnerGroup = DEFAULT_RUNNER_GROUP;
      if (o.annotations !== undefined) job.annotations = o.annotations;
      if (o.log !== undefined) job.log = o.log;
      job.spec = { ...job.spec, ...o, conclusion: job.conclusion, status: 'completed' };
    }
    attempt.status = 'completed';
    attempt.conclusion = deriveConclusion(attempt.jobs) ?? 'failure';
    attempt.updatedAt = at;
  }
}
