import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../lib/events/kinds.js';
import { STUCK_JOBS_PER_INSTALLATION } from '../../lib/reconcile/stuck.js';
import type { QueuedJob } from '../../lib/records.js';
import { lostJob } from '../support/evidence.js';
import { workflowJobPayload } from '../support/job-events.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

const SECRET = 'stuck-secret';
const MIN = 60_000;

describe('stuck-queued jobs, found by the reconciler sweep of the local runtime on an injected clock', () => {
  let local: LocalSetup;
  let dir: string;
  let now = Date.now();
  const clock = () => now;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reprise-stuck-'));
    // No sweep timer: the test sweeps by hand, after moving the clock.
    local = await startLocal({
      secret: SECRET,
      clock,
      eventsFile: join(dir, 'events.jsonl'),
      env: { RECONCILE_INTERVAL_SECONDS: '0' },
    });
    local.sim.setRepoFile('acme/stuck-report', '.github/reprise.yml', 'report: check_run\n');
    local.sim.setRepoFile('acme/stuck-short', '.github/reprise.yml', 'stuck_after: 5\n');
    local.sim.setRepoFile('acme/stuck-off', '.github/reprise.yml', 'enabled: false\n');
  });
  afterAll(async () => {
    await local.close();
    await rm(dir, { recursive: true, force: true });
  });

  const deliver = async (event: string, payload: unknown) =>
    post(`${local.rt.url}/webhook`, await signedDelivery(SECRET, event, payload));
  const stuckLines = () => local.log.lines.filter((l) => l.message === 'stuck queued');
  const events = async () =>
    (await readFile(join(dir, 'events.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as EventEnvelope);

  /** A run lost to its runner, re-run by reprise, whose re-run job then waits for a runner. */
  async function rerunLeftQueued(repo: string) {
    const run = local.sim.addRun({
      repo,
      jobs: [lostJob('test', 'runner-17')],
      onRerun: () => ({ status: 'queued', conclusion: null, runnerName: null }),
    });
    expect((await deliver('workflow_run', workflowRunPayload(local.sim, run.id))).status).toBe(202);
    await local.rt.poller.drain(10_000);
    expect(local.outcomes.find((o) => o.message.runId === run.id)?.outcome.decision).toBe('retried');
    const job = local.sim.run(run.id).job('test', 2)!;
    expect(job.status).toBe('queued');
    const answer = await deliver('workflow_job', workflowJobPayload(local.sim, run.id, job.id, 'queued'));
    expect(answer.body.reason).toBe('job recorded as queued');
    return { run, job };
  }

  it('a re-run job left queued past stuck_after raises exactly one stuck report and in_progress clears it', async () => {
    const { run, job } = await rerunLeftQueued('acme/stuck-report');
    const stuckBefore = local.rt.metrics.get('StuckQueued');

    now += 14 * MIN;
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(0);
    now += 2 * MIN;
    const first = await local.rt.reconciler.sweep();
    expect(first).toMatchObject({ stuckReported: 1, failed: false });
    // Swept again, and again later: still the one report.
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(0);
    now += 30 * MIN;
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(0);

    expect(local.rt.metrics.get('StuckQueued') - stuckBefore).toBe(1);
    const lines = stuckLines().filter((l) => l.run_id === run.id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      repository: 'acme/stuck-report',
      run_attempt: 2,
      job_id: job.id,
      job_name: 'test',
      reprise_rerun: true,
      stuck_after_minutes: 15,
    });
    expect(String(lines[0]!.reason)).toMatch(/job "test" \(a re-run by reprise, attempt 2\) has waited 16 min/);
    const reports = local.sim.checkRuns.filter(
      (c) => c.repo === 'acme/stuck-report' && /stuck/.test(c.output.title ?? ''),
    );
    expect(reports).toHaveLength(1);
    expect(reports[0]!.output.title).toBe('reprise: job stuck queued (re-run by reprise)');
    expect(reports[0]!.output.text).toMatch(/\| test \| 2 \| .* \| stuck_queued \| job "test"/);
    const stuckEvents = (await events()).filter((e) => e.detail.kind === 'stuck_queued' && e.detail.run_id === run.id);
    expect(stuckEvents).toHaveLength(1);
    expect(stuckEvents[0]).toMatchObject({
      source: 'reprise',
      'detail-type': 'Reprise Stuck Queued Job',
      detail: { reprise_rerun: true, job_id: job.id },
    });

    // A runner picks it up: the job is forgotten, and no later sweep looks at it again.
    job.status = 'in_progress';
    job.runnerName = 'runner-42';
    const started = await deliver('workflow_job', workflowJobPayload(local.sim, run.id, job.id, 'in_progress'));
    expect(started.status).toBe(202);
    expect((await local.rt.queuedJobs.list()).some((q) => q.jobId === job.id)).toBe(false);
    now += 60 * MIN;
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(0);
    expect(stuckLines().filter((l) => l.run_id === run.id)).toHaveLength(1);
  });

  it('in_progress before stuck_after: no report at all', async () => {
    const { run, job } = await rerunLeftQueued('acme/stuck-quiet');
    now += 10 * MIN;
    job.status = 'in_progress';
    job.runnerName = 'runner-43';
    await deliver('workflow_job', workflowJobPayload(local.sim, run.id, job.id, 'in_progress'));
    now += 30 * MIN;
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(0);
    expect(stuckLines().filter((l) => l.run_id === run.id)).toHaveLength(0);
  });

  it("a repository's stuck_after applies; a job that is not a re-run is reported unmarked, without a check run", async () => {
    const run = local.sim.addRun({
      repo: 'acme/stuck-short',
      jobs: [{ name: 'build', status: 'queued', conclusion: null }],
    });
    const job = local.sim.run(run.id).jobs[0]!;
    await deliver('workflow_job', workflowJobPayload(local.sim, run.id, job.id, 'queued'));
    now += 4 * MIN;
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(0);
    now += 2 * MIN;
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(1);
    const [line] = stuckLines().filter((l) => l.run_id === run.id);
    expect(line).toMatchObject({ reprise_rerun: false, stuck_after_minutes: 5, run_attempt: 1 });
    expect(local.sim.checkRuns.filter((c) => c.repo === 'acme/stuck-short')).toHaveLength(0);
  });

  it('a job cancelled while queued (completed, no runner) is forgotten at once', async () => {
    const run = local.sim.addRun({
      repo: 'acme/stuck-cancel',
      jobs: [{ name: 'build', status: 'queued', conclusion: null }],
    });
    const job = local.sim.run(run.id).jobs[0]!;
    await deliver('workflow_job', workflowJobPayload(local.sim, run.id, job.id, 'queued'));
    expect((await local.rt.queuedJobs.list()).some((q) => q.jobId === job.id)).toBe(true);
    local.sim.run(run.id).complete({ build: { conclusion: 'cancelled', runnerName: null } });
    const done = await deliver('workflow_job', workflowJobPayload(local.sim, run.id, job.id, 'completed'));
    expect(done.status).toBe(202);
    expect((await local.rt.queuedJobs.list()).some((q) => q.jobId === job.id)).toBe(false);
  });

  it('a repository that turned reprise off is not watched', async () => {
    const run = local.sim.addRun({
      repo: 'acme/stuck-off',
      jobs: [{ name: 'build', status: 'queued', conclusion: null }],
    });
    const job = local.sim.run(run.id).jobs[0]!;
    await deliver('workflow_job', workflowJobPayload(local.sim, run.id, job.id, 'queued'));
    now += 60 * MIN;
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(0);
    expect(stuckLines().filter((l) => l.run_id === run.id)).toHaveLength(0);
  });

  it('a GitHub fault on one job leaves it for the next sweep, which reports it once', async () => {
    const run = local.sim.addRun({
      repo: 'acme/stuck-fault',
      jobs: [{ name: 'build', status: 'queued', conclusion: null }],
    });
    const job = local.sim.run(run.id).jobs[0]!;
    await deliver('workflow_job', workflowJobPayload(local.sim, run.id, job.id, 'queued'));
    now += 20 * MIN;
    local.sim.injectFault({ method: 'GET', path: new RegExp(`/actions/jobs/${job.id}$`), status: 500, times: 50 });
    const faulty = await local.rt.reconciler.sweep();
    local.sim.clearFaults();
    expect(faulty).toMatchObject({ stuckReported: 0, failed: true });
    expect(
      local.log.lines.some((l) => l.message === 'reconcile: queued job left for the next sweep' && l.job_id === job.id),
    ).toBe(true);
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(1);
    expect((await local.rt.reconciler.sweep()).stuckReported).toBe(0);
    expect(stuckLines().filter((l) => l.run_id === run.id)).toHaveLength(1);
  });

  it('a job GitHub says has started (its in_progress delivery was lost) is cleared, not reported', async () => {
    const run = local.sim.addRun({
      repo: 'acme/stuck-lost',
      jobs: [{ name: 'build', status: 'queued', conclusion: null }],
    });
    const job = local.sim.run(run.id).jobs[0]!;
    await deliver('workflow_job', workflowJobPayload(local.sim, run.id, job.id, 'queued'));
    job.status = 'in_progress';
    job.runnerName = 'runner-44';
    now += 20 * MIN;
    const counts = await local.rt.reconciler.sweep();
    expect(counts.stuckCleared).toBeGreaterThanOrEqual(1);
    expect(stuckLines().filter((l) => l.run_id === run.id)).toHaveLength(0);
    expect((await local.rt.queuedJobs.list()).some((q) => q.jobId === job.id)).toBe(false);
  });
});
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
