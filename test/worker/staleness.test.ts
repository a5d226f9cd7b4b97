/**
 * Issue 32, item 3, in the worker against the simulator: when the intake's record of the branch
 * cannot answer (missing, e.g. a write that failed), one listing of the branch's runs does.
 */
import { describe, expect, it } from 'vitest';
import { lostJob } from '../support/evidence.js';
import { branchRunFrom } from '../../lib/webhook/workflow-run.js';
import { harnessForFile, INSTALLATION_ID } from '../support/harness.js';
import { workflowRunPayload } from '../support/webhooks.js';
import type { WorkflowRunSummary } from '../../lib/github/repo-answers.js';
import type { RunMessage } from '../../lib/model.js';
import { findStaleness } from '../../lib/worker/staleness.js';
import { config, runFacts, runMessage } from '../support/fixtures.js';
import { fakeRepoApi } from '../support/fakes/context.js';
import { type DeliveryGap, noDeliveryLog } from '../../lib/decide/delivery-gap.js';

const h = harnessForFile();
const NOTHING_RECORDED = { branchRuns: { newest: () => Promise.resolve(undefined) } };
const listings = () => h.sim.count('GET', /\/actions\/workflows\/\d+\/runs$/);

async function decide(runId: number, over = {}) {
  const res = await h.worker(over)(h.sqsEvent([h.message(runId)]));
  expect(res.batchItemFailures).toEqual([]);
  return h.log.named('decision').find((l) => l.run_id === runId);
}

const lostOn = (repo: string, branch: string, event = 'push') =>
  h.sim.addRun({ repo, event, headBranch: branch, jobs: [lostJob('deploy', 'runner-i-0abc1234def567890')] });

describe('item 3: the record missing, one listing decides a branch run', () => {
  it('a newer commit’s run on the branch → stale, after exactly one listing and no re-run', async () => {
    const older = lostOn('acme/cold-stale', 'main');
    const newer = h.sim.addRun({
      repo: 'acme/cold-stale',
      headBranch: 'main',
      jobs: [{ name: 'deploy', conclusion: null }],
    });
    const line = await decide(older.id, NOTHING_RECORDED);
    expect(line).toMatchObject({ decision: 'stale' });
    expect(String(line?.reason)).toContain(`newer run ${newer.id} of the same workflow on branch main`);
    expect(listings()).toBe(1);
    expect(h.sim.rerunTally(older.id).received).toBe(0);
  });

  it('the branch head → re-run, after exactly one listing', async () => {
    const head = lostOn('acme/cold-head', 'main');
    expect(await decide(head.id, NOTHING_RECORDED)).toMatchObject({ decision: 'retried' });
    expect(listings()).toBe(1);
  });

  it('a newer pull-request run from a branch of the same name does not supersede a branch run', async () => {
    const older = lostOn('acme/cold-pr', 'main');
    h.sim.addRun({
      repo: 'acme/cold-pr',
      event: 'pull_request',
      headBranch: 'main',
      jobs: [{ name: 'deploy', conclusion: 'success' }],
    });
    expect(await decide(older.id, NOTHING_RECORDED)).toMatchObject({ decision: 'retried' });
  });

  it('stale_check: pull_request (the way back) re-runs a superseded push run without any listing', async () => {
    const older = lostOn('acme/cold-back', 'main');
    h.sim.addRun({ repo: 'acme/cold-back', headBranch: 'main', jobs: [{ name: 'deploy', conclusion: 'success' }] });
    const line = await decide(older.id, { ...NOTHING_RECORDED, defaults: { staleCheck: 'pull_request' } });
    expect(line).toMatchObject({ decision: 'retried' });
    expect(listings()).toBe(0);
  });

  it('warm: the record names a newer commit’s run → stale with no listing', async () => {
    const older = lostOn('acme/warm-stale', 'main');
    const newer = h.sim.addRun({
      repo: 'acme/warm-stale',
      headBranch: 'main',
      jobs: [{ name: 'deploy', conclusion: null }],
    });
    // The intake recorded the newer run from its `in_progress` event.
    const reported = branchRunFrom({ ...workflowRunPayload(h.sim, newer.id, INSTALLATION_ID), action: 'in_progress' });
    if (typeof reported === 'string') throw new Error(reported);
    expect(await h.ledger.branchRuns.record(reported.key, reported.run)).toBe(true);
    expect(await decide(older.id)).toMatchObject({ decision: 'stale' });
    expect(listings()).toBe(0);
  });
});

describe('issue 42 point 7: belief is checked when it may be stale (GitHub’s delivery log)', () => {
  const logReads = () => h.sim.count('GET', /\/app\/hook\/deliveries$/);
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

  it('a lost newer-run delivery (failed in GitHub’s delivery log) → stale, 0 POSTs', async () => {
    const older = lostOn('acme/gap-lost', 'main');
    const newer = h.sim.addRun({
      repo: 'acme/gap-lost',
      headBranch: 'main',
      jobs: [{ name: 'deploy', conclusion: null }],
    });
    // The newer run's deliveries never reached the intake: the record still names the older run.
    h.sim.addDelivery({
      guid: 'lost-newer-run',
      event: 'workflow_run',
      action: 'requested',
      statusCode: 502,
      deliveredAt: ago(5 * 60_000),
      installationId: INSTALLATION_ID,
      repositoryId: h.sim.repoId('acme/gap-lost'),
    });
    const before = logReads();
    const line = await decide(older.id);
    // The decision line says which source decided: the listing, the record set aside.
    expect(line).toMatchObject({ decision: 'stale', stale_check: 'listing', app_requests: 1 });
    expect(String(line?.reason)).toContain(`newer run ${newer.id}`);
    expect(listings()).toBe(1);
    expect(logReads() - before).toBe(1);
    expect(h.sim.rerunTally(older.id).received).toBe(0);
    expect(h.log.lines.some((l) => l.failed_delivery === 'lost-newer-run')).toBe(true);
  });

  it('no failed delivery since the run started → the record decides, no listing', async () => {
    const head = lostOn('acme/gap-none', 'main');
    const repositoryId = h.sim.repoId('acme/gap-none');
    const failed = { event: 'workflow_run', action: 'completed', statusCode: 500, installationId: INSTALLATION_ID };
    // Failed before the run started, another installation's, another repository's, and one a redelivery made good.
    h.sim.addDelivery({ ...failed, guid: 'before-start', deliveredAt: ago(40 * 60_000), repositoryId });
    h.sim.addDelivery({ ...failed, guid: 'other-inst', installationId: INSTALLATION_ID + 1, repositoryId });
    h.sim.addDelivery({ ...failed, guid: 'other-repo', repositoryId: repositoryId + 1000 });
    h.sim.addDelivery({ ...failed, guid: 'made-good', deliveredAt: ago(60_000), repositoryId });
    h.sim.addDelivery({ ...failed, guid: 'made-good', statusCode: 202, redelivery: true, repositoryId });
    expect(await decide(head.id)).toMatchObject({ decision: 'retried', stale_check: 'record', app_requests: 1 });
    expect(listings()).toBe(0);
  });

  it('the log is asked in the decision’s first round trip, beside the job listing: no GitHub answer awaited before it', async () => {
    const head = lostOn('acme/gap-beside', 'main');
    const before = h.sim.requests.length;
    let answeredWhenAsked = -1;
    const deliveryLog = (): Promise<DeliveryGap> => {
      answeredWhenAsked = h.sim.requests.slice(before).filter((r) => r.status !== 0).length;
      return Promise.resolve({ kind: 'none' });
    };
    expect(await decide(head.id, { deliveryLog })).toMatchObject({ decision: 'retried' });
    expect(answeredWhenAsked).toBe(0);
    expect(listings()).toBe(0);
  });

  it('a delivery log that cannot be read does not block the decision: one listing decides', async () => {
    const older = lostOn('acme/gap-unread', 'main');
    h.sim.addRun({ repo: 'acme/gap-unread', headBranch: 'main', jobs: [{ name: 'deploy', conclusion: null }] });
    h.sim.injectFault({ method: 'GET', path: /\/app\/hook\/deliveries$/, status: 500, times: 10 });
    expect(await decide(older.id)).toMatchObject({ decision: 'stale' });
    h.sim.clearFaults();
    expect(listings()).toBe(1);
    expect(h.sim.rerunTally(older.id).received).toBe(0);
  });

  it('GITHUB_TOKEN credentials have no delivery log: the record decides as before, and the log line says so', async () => {
    const head = lostOn('acme/gap-token', 'main');
    const before = logReads();
    const tokenContext = { deliveryLog: noDeliveryLog };
    expect(await decide(head.id, tokenContext)).toMatchObject({ decision: 'retried' });
    expect(listings()).toBe(0);
    expect(logReads()).toBe(before);
    expect(h.log.lines.some((l) => /no delivery log under GITHUB_TOKEN/.test(String(l.message)))).toBe(true);
  });
});

describe('finding staleness: the reads each kind of run needs', () => {
  const SHA = 'c0ffee0123456789abcdef0123456789abcdef01';
  const OTHER = 'beef00000000000000000000000000000000beef';
  const summary = (over: Partial<WorkflowRunSummary>): WorkflowRunSummary => ({
    id: 9100,
    runNumber: 50,
    event: 'push',
    createdAt: '2026-10-02T16:10:00Z',
    headSha: OTHER,
    headBranch: 'main',
    headRepositoryId: 7,
    ...over,
  });

  describe('a pull-request run', () => {
    const prMsg = (over: Partial<RunMessage> = {}) =>
      runMessage({ event: 'pull_request', headBranch: 'feature', pullRequests: [12], ...over });
    const prCfg = config({ staleCheck: 'pull_request' });

    it('a newer run for the same head is stale, found by one listing of the workflow’s runs on the branch', async () => {
      const api = fakeRepoApi({
        workflowRuns: async () => [summary({ id: 9200, headSha: SHA, headBranch: 'feature' })],
      });
      expect(await findStaleness(api, prMsg(), runFacts(), prCfg)).toEqual({ newerRunId: 9200 });
      expect(api.readsSent).toEqual(['workflowRuns']);
    });

    it('a run listed as older, or the run itself, is no reason', async () => {
      const api = fakeRepoApi({
        workflowRuns: async () => [
          summary({ id: 9001, headSha: SHA, headBranch: 'feature' }),
          summary({ id: 8999, headSha: SHA, headBranch: 'feature', createdAt: '2026-10-02T15:00:00Z' }),
        ],
        pullRequest: async () => ({ open: true, headSha: SHA }),
      });
      expect(await findStaleness(api, prMsg(), runFacts(), prCfg)).toEqual({});
      expect(api.readsSent).toEqual(['workflowRuns', 'pullRequest']);
    });

    it('a closed pull request, or one whose head moved on, is stale', async () => {
      const closed = fakeRepoApi({
        workflowRuns: async () => [],
        pullRequest: async () => ({ open: false, headSha: SHA }),
      });
      expect(await findStaleness(closed, prMsg(), runFacts(), prCfg)).toEqual({ pullRequestClosed: 12 });
      const moved = fakeRepoApi({
        workflowRuns: async () => [],
        pullRequest: async () => ({ open: true, headSha: OTHER }),
      });
      expect(await findStaleness(moved, prMsg(), runFacts(), prCfg)).toEqual({ pullRequestMovedOn: 12 });
    });

    it('reads at most three of the run’s pull requests', async () => {
      const api = fakeRepoApi({
        workflowRuns: async () => [],
        pullRequest: async () => ({ open: true, headSha: SHA }),
      });
      await findStaleness(api, prMsg({ pullRequests: [1, 2, 3, 4, 5] }), runFacts(), prCfg);
      expect(api.readsSent.filter((r) => r === 'pullRequest')).toHaveLength(3);
    });
  });

  describe('a branch run under stale_check: branch', () => {
    const cfg = config({ staleCheck: 'branch' });
    const msg = runMessage({ runNumber: 40 });
    const recorded = (newest: { runId: number; runNumber: number; headSha: string } | undefined) => ({
      newest: async () => newest,
    });

    it('the intake’s record of a newer commit’s run answers stale with no listing', async () => {
      const api = fakeRepoApi({});
      const stale = await findStaleness(
        api,
        msg,
        runFacts(),
        cfg,
        recorded({ runId: 9300, runNumber: 41, headSha: OTHER }),
      );
      expect(stale).toEqual({
        newerRunId: 9300,
        newerOnBranch: { branch: 'main', headSha: OTHER },
        decidedBy: 'record',
      });
      expect(api.readsSent).toEqual([]);
    });

    it('the record naming this run answers current with no listing', async () => {
      const api = fakeRepoApi({});
      const own = recorded({ runId: msg.runId, runNumber: 40, headSha: SHA });
      expect(await findStaleness(api, msg, runFacts(), cfg, own)).toEqual({ decidedBy: 'record' });
      expect(api.readsSent).toEqual([]);
    });

    it('no record: one listing, where only the repository’s own branch runs count (not a fork’s pull request)', async () => {
      const api = fakeRepoApi({
        workflowRuns: async () => [
          summary({ id: 9400, runNumber: 45, event: 'pull_request', headRepositoryId: 99 }),
          summary({ id: 9401, runNumber: 46, headRepositoryId: 99 }),
        ],
      });
      expect(await findStaleness(api, msg, runFacts(), cfg, recorded(undefined))).toEqual({ decidedBy: 'listing' });
      expect(api.readsSent).toEqual(['workflowRuns']);

      const own = fakeRepoApi({ workflowRuns: async () => [summary({ id: 9402, runNumber: 47 })] });
      expect(await findStaleness(own, msg, runFacts(), cfg, recorded(undefined))).toEqual({
        newerRunId: 9402,
        newerOnBranch: { branch: 'main', headSha: OTHER },
        decidedBy: 'listing',
      });
    });

    it('a newer run of the same commit is a re-trigger, not a reason', async () => {
      const api = fakeRepoApi({ workflowRuns: async () => [summary({ id: 9500, runNumber: 48, headSha: SHA })] });
      expect(await findStaleness(api, msg, runFacts(), cfg, recorded(undefined))).toEqual({ decidedBy: 'listing' });
    });
  });
});
