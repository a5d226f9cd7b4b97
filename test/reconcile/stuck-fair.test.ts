import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STUCK_JOBS_PER_INSTALLATION } from '../../lib/reconcile/stuck.js';
import type { QueuedJob } from '../../lib/records.js';
import { type LocalSetup, startLocal } from '../support/local.js';

const MIN = 60_000;
const BUSY = 7101;
const QUIET = 7102;
const BACKLOG = 2000;

/**
 * The stuck-job sweep reads each installation apart and a bounded share of it: one installation's
 * thousands of jobs queued on a label no runner has cannot delay another installation's report.
 */
describe("the stuck-job sweep is fair between installations (the local runtime's reconciler, dynalite, the simulator)", () => {
  let local: LocalSetup;
  let now = Date.now();

  beforeAll(async () => {
    local = await startLocal({ secret: 'fair-secret', clock: () => now, env: { RECONCILE_INTERVAL_SECONDS: '0' } });
    local.sim.addInstallation({ id: BUSY, account: 'busy' });
    local.sim.addInstallation({ id: QUIET, account: 'quiet' });
  });
  afterAll(async () => local?.close());

  /** A job the simulator holds queued, recorded as the intake records a `queued` delivery. */
  const queue = async (installationId: number, repo: string, runs: number) => {
    const run = local.sim.addRun({
      repo,
      jobs: Array.from({ length: runs }, (_, i) => ({ name: `job-${i}`, status: 'queued', conclusion: null })),
    });
    const r = local.sim.run(run.id);
    for (const job of r.jobs) {
      const record: QueuedJob = {
        installationId,
        repoId: local.sim.repoId(repo),
        repository: repo,
        runId: run.id,
        runAttempt: 1,
        jobId: job.id,
        name: job.name,
        workflowName: null,
        headSha: r.headSha,
        labels: ['gpu-none'],
      };
      await local.rt.queuedJobs.queued(record);
    }
    return r;
  };

  it("one installation's thousands of stuck jobs do not delay another installation's report: the next sweep reports it and reads a bounded share of the backlog", async () => {
    await queue(BUSY, 'busy/backlog', BACKLOG);
    const quiet = await queue(QUIET, 'quiet/app', 1);
    now += 20 * MIN;
    local.sim.resetRequests();

    const sweep = await local.rt.reconciler.sweep();

    const quietLine = local.log.lines.find((l) => l.message === 'stuck queued' && l.job_id === quiet.jobs[0]!.id);
    expect(quietLine, "the quiet installation's stuck job is reported by the first sweep").toBeDefined();
    const busyStatusReads = local.sim.count('GET', /\/repos\/busy\/backlog\/actions\/jobs\/\d+$/);
    expect(busyStatusReads).toBeLessThanOrEqual(STUCK_JOBS_PER_INSTALLATION);
    expect(sweep.stuckReported).toBe(STUCK_JOBS_PER_INSTALLATION + 1);

    // The backlog is worked through share by share: each sweep resumes where the last ended.
    local.sim.resetRequests();
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(STUCK_JOBS_PER_INSTALLATION);
    const reported = local.log.lines.filter((l) => l.message === 'stuck queued' && l.repository === 'busy/backlog');
    expect(new Set(reported.map((l) => l.job_id)).size).toBe(2 * STUCK_JOBS_PER_INSTALLATION);
  });
});
