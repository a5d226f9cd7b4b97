/**
 * GitHub's job lease, as the simulator plays it, each behaviour from its source:
 * - A runner renews its job's lease every minute, each renewal good for ten minutes ("Successfully
 *   renew job request 94, job is valid till … 17:50:44" a minute apart, actions/runner#1549 and
 *   #3539); a job whose runner died fails "lost communication with the server" when it runs out
 *   ("After ~15 min the job fails", actions/runner#1549; "It then has 10 minutes to complete the
 *   job", actions/runner#3539). Here: `leaseMs` after the death.
 * - While the run is in progress every re-run is refused, 403 "This workflow is already running"
 *   (reruns.ts, docs/design.md §1).
 * - `POST …/cancel` cancels the run and waits for each runner; a dead one never answers, and GitHub
 *   ends its job at its cancellation timeout (five minutes, docs/design.md §1) or its lease.
 * - `POST …/force-cancel` "bypasses conditions that would otherwise cause a workflow execution to
 *   continue, such as an always() condition … You should only use this endpoint … when the workflow
 *   run is not responding to POST …/cancel" (GitHub's REST description, `@octokit/openapi`): 202,
 *   or 409 when the run cannot be cancelled. Every job it ends is annotated "The run was canceled by
 *   @<actor>." (docs/design.md §1).
 * - At most 50 re-runs per run (reruns.ts).
 */
import { iso } from './ids.js';
import { ejectOnFailure } from './merge-queue.js';
import type { SimModel } from './model.js';
import { deriveConclusion, type SimRun } from './runs.js';
import type { SimJob } from './types.js';

export interface LeaseOptions {
  /** From the runner's death to GitHub failing its job: GitHub's lease (10 minutes). */
  readonly leaseMs: number;
  /** From a `cancel` to GitHub ending a job whose runner never acknowledged it (5 minutes). */
  readonly cancelTimeoutMs: number;
}

export const GITHUB_LEASE: LeaseOptions = { leaseMs: 10 * 60_000, cancelTimeoutMs: 5 * 60_000 };

const LOST_TAIL =
  'lost communication with the server. Verify the machine is running and has a healthy network connection. ' +
  'Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its ' +
  'network access can cause this error.';

export type CancelAnswer = { ok: true } | { ok: false; status: number; message: string };

/** The lease of every job the simulator runs, the runners that died, and the cancels. */
export class SimLease {
  options: LeaseOptions = GITHUB_LEASE;
  /** Runners that died, by name: when. */
  readonly dead = new Map<string, number>();
  /** Told about each job that ends while its run is in progress (a `workflow_job` `completed`). */
  onJobEnded: ((run: SimRun, job: SimJob) => void) | null = null;
  /** Told about each run that completes here (a `workflow_run` `completed`). */
  onRunCompleted: ((run: SimRun) => void) | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly model: SimModel) {}

  /** The machine under `runner` is gone now: its running jobs end when their lease runs out. */
  loseRunner(runner: string): void {
    this.dead.set(runner, Date.now());
    for (const { job, run } of this.model.jobs.values()) {
      if (job.runnerName !== runner || job.status === 'completed' || run.latest.jobs.indexOf(job) < 0) continue;
      this.after(this.options.leaseMs, () =>
        this.end(run, job, 'failure', `The self-hosted runner: ${runner} ${LOST_TAIL}`),
      );
    }
  }

  /** A healthy job ends as its runner reports it. */
  finish(run: SimRun, name: string, conclusion: 'success' | 'failure' = 'success'): SimJob {
    const job = run.job(name);
    if (!job || job.status === 'completed') throw new Error(`job "${name}" of run ${run.id} is not running`);
    this.end(run, job, conclusion);
    return job;
  }

  /** `POST …/cancel`: live runners stop at once, a dead one at the cancel timeout or its lease. */
  cancel(run: SimRun, actor: string): CancelAnswer {
    if (run.status === 'completed')
      return { ok: false, status: 409, message: 'Cannot cancel a workflow run that is completed.' };
    for (const job of this.open(run)) {
      const died = job.runnerName ? this.dead.get(job.runnerName) : undefined;
      if (died === undefined) {
        this.end(run, job, 'cancelled', `The run was canceled by @${actor}.`);
        continue;
      }
      const leaseLeft = died + this.options.leaseMs - Date.now();
      this.after(Math.min(this.options.cancelTimeoutMs, leaseLeft), () =>
        this.end(run, job, 'cancelled', `The run was canceled by @${actor}.`),
      );
    }
    return { ok: true };
  }

  /** `POST …/force-cancel`: every unfinished job ends now, no runner asked. */
  forceCancel(run: SimRun, actor: string): CancelAnswer {
    if (run.status === 'completed')
      return { ok: false, status: 409, message: 'Cannot cancel a workflow run that is completed.' };
    for (const job of this.open(run)) this.end(run, job, 'cancelled', `The run was canceled by @${actor}.`, true);
    this.completeIfDone(run);
    return { ok: true };
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private open(run: SimRun): SimJob[] {
    return run.latest.jobs.filter((j) => j.status !== 'completed' && j.runAttempt === run.runAttempt);
  }

  private after(ms: number, fn: () => void): void {
    const t = setTimeout(
      () => {
        this.timers.delete(t);
        fn();
      },
      Math.max(0, ms),
    );
    t.unref();
    this.timers.add(t);
  }

  /** Ends one job (a no-op when it already ended); the run completes with its last job. */
  private end(
    run: SimRun,
    job: SimJob,
    conclusion: 'success' | 'failure' | 'cancelled',
    note?: string,
    quiet = false,
  ): void {
    if (job.status === 'completed') return;
    const at = iso(Date.now());
    job.status = 'completed';
    job.conclusion = conclusion;
    job.completedAt = at;
    if (note && Array.isArray(job.annotations)) {
      job.annotations = [...job.annotations, { level: 'failure', message: note }];
    }
    job.spec = { ...job.spec, status: 'completed', conclusion, completedAt: at };
    this.onJobEnded?.(run, job);
    if (!quiet) this.completeIfDone(run);
  }

  private completeIfDone(run: SimRun): void {
    const attempt = run.latest;
    if (attempt.status === 'completed' || attempt.jobs.some((j) => j.status !== 'completed')) return;
    attempt.status = 'completed';
    attempt.conclusion = deriveConclusion(attempt.jobs) ?? 'failure';
    attempt.updatedAt = iso(Date.now());
    ejectOnFailure(this.model, run);
    this.onRunCompleted?.(run);
  }
}
