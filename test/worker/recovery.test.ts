/**
 * Issue 40 in the worker, against the simulator's job lease and the embedded DynamoDB: a
 * request to end a run early is proven (the job still runs on the runner a signal named, the
 * run is current), then the run is ended once with `force-cancel`; its completion is decided as
 * a lost job with an exact signal, never as a person's cancel.
 */
import { describe, expect, it, vi } from 'vitest';
import type { EarlyRecovery, RecoveryMessage, RunnerSignal, SignalKind } from '../../lib/model.js';
import { runRecovery } from '../../lib/worker/recovery.js';
import { MAX_FORCE_CANCEL_CALLS } from '../../lib/worker/end-run.js';
import type { SimRun } from '../sim/runs.js';
import { harnessForFile, INSTALLATION_ID } from '../support/harness.js';
import { MERGE_QUEUE_PERMISSIONS } from '../sim/permissions.js';
import { branchRunFrom } from '../../lib/webhook/workflow-run.js';
import { workflowRunPayload } from '../support/webhooks.js';

const h = harnessForFile({ clearFaults: true });
let seq = 0;
const noSleep = () => Promise.resolve();

/** A run in progress whose `build` runs on `runner`; `others` run beside it on healthy runners. */
function runningRun(runner: string, others: { name: string; done?: boolean }[] = [], repo = `acme/er-${++seq}`) {
  return h.sim.addRun({
    repo,
    jobs: [
      { name: 'build', conclusion: null, status: 'in_progress', runnerName: runner },
      ...others.map((o) =>
        o.done
          ? { name: o.name, conclusion: 'success' as const }
          : { name: o.name, conclusion: null, status: 'in_progress' as const, runnerName: `healthy-${o.name}-${seq}` },
      ),
    ],
  });
}

const request = (run: SimRun, runner: string, job = 'build', installationId = INSTALLATION_ID): RecoveryMessage => ({
  v: 1,
  kind: 'recovery',
  installationId,
  repository: { id: h.sim.repoId(run.repo), owner: run.repo.split('/')[0]!, name: run.repo.split('/')[1]! },
  runId: run.id,
  jobId: run.job(job)!.id,
  runnerName: runner,
  trigger: 'signal',
});

async function signal(runner: string, kind: SignalKind, at = new Date()): Promise<RunnerSignal> {
  const s = { runnerKey: runner, kind, eventTime: at.toISOString(), eventId: `ev-${++seq}`, source: 'agent' };
  await h.signals.record(s);
  return s;
}

const recover = (msg: RecoveryMessage, mode: EarlyRecovery = 'last_job', defaults = {}) =>
  runRecovery(msg, { ...h.deps({ defaults: { earlyRecovery: mode, ...defaults } }), sleep: noSleep });

const forceCancels = (run: SimRun) => h.sim.count('POST', new RegExp(`/actions/runs/${run.id}/force-cancel$`));

describe('issue 40: early recovery proves, then ends the run once', () => {
  it('last_job: the one running job on a runner an exact signal proves gone → one force-cancel; the run completes', async () => {
    const runner = `ghr-i-0${(++seq).toString(16).padStart(16, 'a')}`;
    const run = runningRun(runner, [{ name: 'lint', done: true }]);
    await signal(runner, 'terminated');
    const result = await recover(request(run, runner));
    expect(result).toMatchObject({ kind: 'done', outcome: 'ended' });
    expect(forceCancels(run)).toBe(1);
    expect(h.sim.run(run.id).status).toBe('completed');
    expect(h.sim.run(run.id).job('build')).toMatchObject({ conclusion: 'cancelled' });
    expect(h.sim.run(run.id).job('lint')).toMatchObject({ conclusion: 'success' });
  });

  it('last_job: a healthy sibling still runs → nothing cancelled, the run waits; its end asks again and ends it', async () => {
    const runner = `lost-${++seq}`;
    const run = runningRun(runner, [{ name: 'test' }]);
    await signal(runner, 'external');
    const first = await recover(request(run, runner));
    expect(first).toMatchObject({ kind: 'done', outcome: 'wait_for_siblings' });
    expect(forceCancels(run)).toBe(0);
    const repoId = h.sim.repoId(run.repo);
    expect(await h.ledger.recoveries.waiting(repoId, run.id)).toMatchObject({ jobId: run.job('build')!.id });

    h.sim.lease.finish(run, 'test');
    const second = await recover({ ...request(run, runner), trigger: 'sibling_ended' });
    expect(second).toMatchObject({ kind: 'done', outcome: 'ended' });
    expect(forceCancels(run)).toBe(1);
    expect(h.sim.run(run.id).job('test')).toMatchObject({ conclusion: 'success' });
    expect(await h.ledger.recoveries.waiting(repoId, run.id)).toBeUndefined();
  });

  it('last_job: a sibling that ends while the wait is being written (its completion found no wait) is seen by one more look', async () => {
    const runner = `racing-${++seq}`;
    const run = runningRun(runner, [{ name: 'test' }]);
    await signal(runner, 'terminated');
    const deps = { ...h.deps({ defaults: { earlyRecovery: 'last_job' } }), sleep: noSleep };
    const store = deps.stores.recoveries;
    const write = store.awaitSiblings.bind(store);
    const spy = vi.spyOn(store, 'awaitSiblings').mockImplementation(async (m) => {
      h.sim.lease.finish(run, 'test');
      await write(m);
    });
    expect(await runRecovery(request(run, runner), deps)).toMatchObject({ kind: 'done', outcome: 'ended' });
    spy.mockRestore();
    expect(forceCancels(run)).toBe(1);
    expect(h.sim.run(run.id).job('test')).toMatchObject({ conclusion: 'success' });
  });

  it('now: a healthy sibling running is ended too', async () => {
    const runner = `lost-${++seq}`;
    const run = runningRun(runner, [{ name: 'test' }]);
    await signal(runner, 'terminated');
    expect(await recover(request(run, runner), 'now')).toMatchObject({ outcome: 'ended' });
    expect(forceCancels(run)).toBe(1);
    expect(h.sim.run(run.id).job('test')).toMatchObject({ conclusion: 'cancelled' });
  });

  it('a runner gone after its job ended is never a reason: nothing sent', async () => {
    const runner = `done-${++seq}`;
    const run = h.sim.addRun({
      repo: `acme/er-${seq}`,
      jobs: [
        { name: 'build', conclusion: 'success', runnerName: runner },
        { name: 'deploy', conclusion: null, status: 'in_progress', runnerName: `healthy-${seq}` },
      ],
    });
    await signal(runner, 'terminated');
    expect(await recover(request(run, runner))).toMatchObject({ outcome: 'job_ended' });
    expect(forceCancels(run)).toBe(0);
  });

  it('a spot warning whose two minutes have not passed waits; a rebalance recommendation alone proves nothing', async () => {
    const warned = `warned-${++seq}`;
    const run = runningRun(warned);
    const at = await signal(warned, 'spot-interruption');
    const result = await recover(request(run, warned));
    expect(result).toMatchObject({ kind: 'deferred', untilMs: Date.parse(at.eventTime) + 120_000 });
    expect(forceCancels(run)).toBe(0);

    const risky = `risky-${++seq}`;
    const other = runningRun(risky);
    await signal(risky, 'rebalance');
    expect(await recover(request(other, risky))).toMatchObject({ outcome: 'not_proven' });
    expect(forceCancels(other)).toBe(0);
  });

  it('a spot warning two minutes old proves the loss', async () => {
    const runner = `reclaimed-${++seq}`;
    const run = runningRun(runner);
    await signal(runner, 'spot-interruption', new Date(Date.now() - 121_000));
    expect(await recover(request(run, runner))).toMatchObject({ outcome: 'ended' });
  });

  it(`GitHub failing every force-cancel (500) → at most ${MAX_FORCE_CANCEL_CALLS} calls, then the lease is waited for`, async () => {
    const runner = `stubborn-${++seq}`;
    const run = runningRun(runner);
    await signal(runner, 'terminated');
    h.sim.injectFault({ method: 'POST', path: /\/force-cancel$/, status: 500, message: 'Server Error', times: 10 });
    expect(await recover(request(run, runner))).toMatchObject({ outcome: 'end_refused' });
    expect(forceCancels(run)).toBe(MAX_FORCE_CANCEL_CALLS);
    // Another request for the same attempt sends nothing more.
    expect(await recover(request(run, runner))).toMatchObject({ outcome: 'already_ended' });
    expect(forceCancels(run)).toBe(MAX_FORCE_CANCEL_CALLS);
    expect(h.sim.run(run.id).status).toBe('in_progress');
  });

  it('a refusal (409) is final after one call', async () => {
    const runner = `refused-${++seq}`;
    const run = runningRun(runner);
    await signal(runner, 'terminated');
    h.sim.injectFault({ method: 'POST', path: /\/force-cancel$/, status: 409, message: 'Cannot cancel', times: 1 });
    expect(await recover(request(run, runner))).toMatchObject({ outcome: 'end_refused' });
    expect(forceCancels(run)).toBe(1);
  });

  it('a superseded branch run is never ended', async () => {
    const runner = `old-${++seq}`;
    const repo = `acme/er-stale-${seq}`;
    const run = h.sim.addRun({
      repo,
      headBranch: 'main',
      jobs: [{ name: 'build', conclusion: null, status: 'in_progress', runnerName: runner }],
    });
    h.sim.addRun({ repo, headBranch: 'main', jobs: [{ name: 'build', conclusion: null }] });
    await signal(runner, 'terminated');
    expect(await recover(request(run, runner))).toMatchObject({ outcome: 'stale' });
    expect(forceCancels(run)).toBe(0);
  });

  describe('issue 42 point 7: the record of the branch is checked against GitHub’s delivery log', () => {
    /** An older run the intake recorded as its branch's newest, and a newer commit's run it never heard of. */
    async function supersededUnheard(tag: string) {
      const runner = `${tag}-${++seq}`;
      const repo = `acme/er-${tag}-${seq}`;
      const run = h.sim.addRun({
        repo,
        headBranch: 'main',
        jobs: [{ name: 'build', conclusion: null, status: 'in_progress', runnerName: runner }],
      });
      const reported = branchRunFrom({ ...workflowRunPayload(h.sim, run.id, INSTALLATION_ID), action: 'in_progress' });
      if (typeof reported === 'string') throw new Error(reported);
      expect(await h.ledger.branchRuns.record(reported.key, reported.run)).toBe(true);
      const newer = h.sim.addRun({ repo, headBranch: 'main', jobs: [{ name: 'build', conclusion: null }] });
      await signal(runner, 'terminated');
      return { run, runner, repo, newer };
    }
    const logReads = () => h.sim.count('GET', /\/app\/hook\/deliveries$/);

    it('the newer run’s workflow_run delivery failed since the run started → one listing finds it: stale, never ended', async () => {
      const { run, runner, repo, newer } = await supersededUnheard('lost');
      h.sim.addDelivery({
        guid: `lost-${newer.id}`,
        event: 'workflow_run',
        action: 'requested',
        statusCode: 502,
        installationId: INSTALLATION_ID,
        repositoryId: h.sim.repoId(repo),
      });
      const before = logReads();
      const result = await recover(request(run, runner));
      expect(result).toMatchObject({ outcome: 'stale' });
      expect((result as { reason: string }).reason).toContain(`newer run ${newer.id}`);
      expect(logReads() - before).toBe(1);
      expect(forceCancels(run)).toBe(0);
    });

    it('control: no failed delivery in the log → the record decides the run current, and it is ended', async () => {
      const { run, runner } = await supersededUnheard('heard');
      expect(await recover(request(run, runner))).toMatchObject({ outcome: 'ended' });
      expect(forceCancels(run)).toBe(1);
    });
  });

  it('the operator’s pause of the owner stops the end: nothing sent', async () => {
    const runner = `paused-${++seq}`;
    const run = runningRun(runner, [], `pausing-${seq}/app`);
    await signal(runner, 'terminated');
    await h.ledger.pauses.pause({ scope: run.repo.split('/')[0]!, by: 'ops', reason: 'drill' });
    expect(await recover(request(run, runner))).toMatchObject({ outcome: 'paused' });
    expect(forceCancels(run)).toBe(0);
  });

  it('off and dry_run send nothing', async () => {
    const runner = `quiet-${++seq}`;
    const run = runningRun(runner);
    await signal(runner, 'terminated');
    h.sim.resetRequests();
    expect(await recover(request(run, runner), 'off')).toMatchObject({ outcome: 'off' });
    expect(h.sim.requests.filter((r) => r.path.includes('/actions/'))).toEqual([]);
    expect(await recover(request(run, runner), 'last_job', { dryRun: true })).toMatchObject({ outcome: 'dry_run' });
    expect(h.sim.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('issue 40: the completion after reprise’s own end', () => {
  const decide = async (run: SimRun, installationId = INSTALLATION_ID) => {
    const res = await h.worker()(h.sqsEvent([h.message(run.id, undefined, installationId)]));
    expect(res.batchItemFailures).toEqual([]);
    return h.log.named('decision').find((l) => l.run_id === run.id);
  };

  it('the lost job, cancelled by reprise[bot], is infra by its signal and re-run; passed jobs are kept', async () => {
    h.sim.rerunFailedJobsIncludesCancelled = true;
    const runner = `ended-${++seq}`;
    const run = runningRun(runner, [{ name: 'lint', done: true }]);
    await signal(runner, 'terminated');
    expect(await recover(request(run, runner))).toMatchObject({ outcome: 'ended' });
    const annotations = h.sim.run(run.id).job('build')!.annotations;
    expect(annotations).toEqual([{ level: 'failure', message: 'The run was canceled by @reprise[bot].' }]);
    expect(await decide(run)).toMatchObject({ decision: 'retried' });
    const rerun = h.sim.reruns.find((r) => r.runId === run.id)!;
    expect(rerun).toMatchObject({ kind: 'failed_jobs', jobsRerun: ['build'], jobsKept: ['lint'] });
  });

  it('control: the same cancel note on a run reprise did not end stays a veto', async () => {
    const runner = `cancelled-${++seq}`;
    const run = runningRun(runner);
    await signal(runner, 'terminated');
    h.sim.lease.forceCancel(h.sim.run(run.id), 'reprise[bot]');
    expect(await decide(run)).toMatchObject({ decision: 'vetoed' });
  });

  it('a merge-group run ended early goes back in the merge queue through the existing path', async () => {
    const QUEUER = 4949;
    h.sim.addInstallation({
      id: QUEUER,
      account: 'queuer',
      permissions: { ...MERGE_QUEUE_PERMISSIONS },
    });
    const runner = `queued-${++seq}`;
    const pr = seq;
    const g = h.sim.addMergeGroupRun({
      repo: `queuer/er-queue-${pr}`,
      pullRequest: pr,
      jobs: [{ name: 'test', conclusion: null, status: 'in_progress', runnerName: runner }],
    });
    await signal(runner, 'terminated');
    expect(h.sim.pullRequest(g.run.repo, pr)?.inMergeQueue).toBe(true);
    expect(await recover(request(g.run, runner, 'test', QUEUER))).toMatchObject({ outcome: 'ended' });
    // GitHub took the pull request out of the queue when the cancelled group's run ended.
    expect(h.sim.pullRequest(g.run.repo, pr)?.inMergeQueue).toBe(false);
    const line = await decide(g.run, QUEUER);
    expect(line, String(line?.reason)).toMatchObject({ decision: 'requeued' });
    expect(h.sim.enqueueRequests.filter((r) => r.pullRequest === pr)).toHaveLength(1);
    expect(h.sim.rerunTally(g.run.id).received).toBe(0);
  });
});
