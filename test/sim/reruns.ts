import { iso } from './ids.js';
import type { SimModel } from './model.js';
import { buildJob, deriveConclusion, type SimRun } from './runs.js';
import type { SimJob, SimJobSpec, SimRerunRecord } from './types.js';

export type RerunResult = { ok: true; record: SimRerunRecord } | { ok: false; status: number; message: string };

const MAX_ATTEMPTS = 50;
const MAX_AGE_MS = 30 * 86_400_000;

function refuse(message: string, status = 403): RerunResult {
  return { ok: false, status, message };
}

function guard(run: SimRun, runningMessage: string): RerunResult | null {
  if (run.status !== 'completed') return refuse(runningMessage);
  if (run.runAttempt >= MAX_ATTEMPTS) return refuse('This workflow run has reached the maximum number of attempts');
  if (Date.now() - Date.parse(run.createdAt) > MAX_AGE_MS) {
    return refuse('Unable to retry this workflow run because it was created over a month ago');
  }
  return null;
}

/** A re-run lands on another machine: a fresh instance id where the old name carried one. */
function freshRunnerName(model: SimModel, old: string | null): string {
  if (!old) return model.defaultRunnerName();
  const m = /i-([0-9a-f]{8,17})$/.exec(old);
  if (m?.[1]) return old.slice(0, m.index) + 'i-' + model.rng.hex(m[1].length);
  return `${old}-${model.rng.hex(4)}`;
}

function nextSpec(model: SimModel, run: SimRun, job: SimJob, attempt: number): SimJobSpec {
  if (run.onRerun === 'same') return { ...job.spec, status: undefined, startedAt: undefined, completedAt: undefined };
  const base: SimJobSpec = {
    name: job.name,
    conclusion: 'success',
    runnerName: freshRunnerName(model, job.runnerName),
    // The same labels go to the same runner group.
    ...(job.runnerGroup !== null && { runnerGroup: job.runnerGroup }),
    labels: job.labels,
    needs: job.needs,
  };
  if (run.onRerun === 'success') return base;
  return { ...base, ...run.onRerun(job.spec, attempt), name: job.name };
}

/** Adds every job that (transitively) needs a job being re-run, as GitHub re-runs dependents too. */
function withDependents(jobs: SimJob[], names: Set<string>): Set<string> {
  let grew = true;
  while (grew) {
    grew = false;
    for (const j of jobs) {
      if (!names.has(j.name) && j.needs.some((n) => names.has(n))) {
        names.add(j.name);
        grew = true;
      }
    }
  }
  return names;
}

function startAttempt(
  model: SimModel,
  run: SimRun,
  names: Set<string>,
  kind: SimRerunRecord['kind'],
  jobId?: number,
): RerunResult {
  const before = run.latest;
  const n = before.number + 1;
  const now = iso(Date.now());
  withDependents(before.jobs, names);
  const at = { repo: run.repo, runId: run.id, attempt: n, createdAt: now, completedAt: now };
  const jobs = before.jobs.map((j) => (names.has(j.name) ? buildJob(model, nextSpec(model, run, j, n), at) : j));
  for (const j of jobs) if (j.runAttempt === n) model.indexJob(j, run);
  const conclusion = deriveConclusion(jobs);
  run.attempts.push({
    number: n,
    status: conclusion === null ? 'in_progress' : 'completed',
    conclusion,
    jobs,
    executed: jobs.filter((j) => j.runAttempt === n).map((j) => j.name),
    startedAt: now,
    updatedAt: now,
  });
  const record: SimRerunRecord = {
    kind,
    runId: run.id,
    ...(jobId !== undefined ? { jobId } : {}),
    attemptBefore: before.number,
    at: Date.now(),
    jobsRerun: jobs.filter((j) => j.runAttempt === n).map((j) => j.name),
    jobsKept: jobs.filter((j) => j.runAttempt !== n).map((j) => j.name),
  };
  model.reruns.push(record);
  model.onNewAttempt?.(run);
  return { ok: true, record };
}

export function rerunFailedJobs(model: SimModel, run: SimRun): RerunResult {
  const refused = guard(run, 'This workflow is already running');
  if (refused) return refused;
  const failed = (c: SimJob['conclusion']): boolean =>
    c === 'failure' || c === 'timed_out' || (model.rerunFailedJobsIncludesCancelled && c === 'cancelled');
  const names = new Set(run.jobs.filter((j) => failed(j.conclusion)).map((j) => j.name));
  if (names.size === 0) return refuse('No failed jobs to re-run');
  return startAttempt(model, run, names, 'failed_jobs');
}

export function rerunRun(model: SimModel, run: SimRun): RerunResult {
  const refused = guard(run, 'This workflow is already running');
  if (refused) return refused;
  return startAttempt(model, run, new Set(run.jobs.map((j) => j.name)), 'run');
}

export function rerunJob(model: SimModel, run: SimRun, jobId: number): RerunResult {
  const refused = guard(run, 'The workflow run containing this job is already running');
  if (refused) return refused;
  const job = run.jobs.find((j) => j.id === jobId);
  if (!job) return refuse('This job is not part of the latest attempt of its workflow run');
  return startAttempt(model, run, new Set([job.name]), 'job', jobId);
}
