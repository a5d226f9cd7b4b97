/**
 * Runs on runners that die, delivered to a runtime as GitHub would: each job's `in_progress`,
 * every job's and run's end as the simulator's lease plays it (each delivery twice, under
 * distinct GUIDs), and the agent's `terminated` signal at the moment of death. Shared by the
 * early-recovery acceptance (test/wall-clock/early-recovery.test.ts) and the bench's time to
 * recovery (test/bench/recovery.ts).
 */
import { randomUUID } from 'node:crypto';
import type { GitHubSimulator } from '../sim/index.js';
import type { SimRun } from '../sim/runs.js';
import type { SimJob } from '../sim/types.js';
import { COMPILED_SECRET } from './compiled-runtime.js';
import { INSTALLATION_ID } from './harness.js';
import { workflowJobPayload } from './job-events.js';
import { post, signedDelivery, workflowRunPayload } from './webhooks.js';

export interface LeaseWorld {
  readonly sim: GitHubSimulator;
  /** The runtime's public URL. */
  readonly url: string;
}

export async function deliverJob(w: LeaseWorld, run: SimRun, job: SimJob, action: 'in_progress' | 'completed') {
  for (let copy = 0; copy < 2; copy++) {
    const payload = workflowJobPayload(w.sim, run.id, job.id, action);
    const answer = await post(`${w.url}/webhook`, await signedDelivery(COMPILED_SECRET, 'workflow_job', payload));
    if (answer.status !== 202) throw new Error(`workflow_job ${action} answered ${answer.status}`);
  }
}

export async function deliverRun(w: LeaseWorld, run: SimRun, action = 'completed'): Promise<void> {
  for (let copy = 0; copy < 2; copy++) {
    const payload = { ...workflowRunPayload(w.sim, run.id, INSTALLATION_ID), action };
    await post(`${w.url}/webhook`, await signedDelivery(COMPILED_SECRET, 'workflow_run', payload, randomUUID()));
  }
}

/** Every job's and run's end the lease plays is delivered as GitHub would deliver it. */
export function deliverLeaseEnds(w: LeaseWorld): void {
  w.sim.lease.onJobEnded = (run, job) => void deliverJob(w, run, job, 'completed').catch(() => undefined);
  w.sim.lease.onRunCompleted = (run) => void deliverRun(w, run).catch(() => undefined);
}

/** Announces a run's running jobs (and the ones already done) as their `workflow_job` events do. */
export async function announceJobs(w: LeaseWorld, run: SimRun): Promise<void> {
  for (const job of run.jobs) await deliverJob(w, run, job, 'in_progress');
  for (const job of run.jobs.filter((j) => j.status === 'completed')) await deliverJob(w, run, job, 'completed');
}

/** The runner dies now: the lease starts to run out, and an agent reports it at once. Answers the post's status. */
export async function loseRunner(w: LeaseWorld, runner: string, signalSecret: string): Promise<number> {
  w.sim.lease.loseRunner(runner);
  const res = await fetch(`${w.url}/signals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${signalSecret}` },
    body: JSON.stringify({ runners: [runner], kind: 'terminated' }),
  });
  return res.status;
}

/** Waits until `done` holds or `ms` pass, polling; answers whether it held. */
export async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
  return true;
}
