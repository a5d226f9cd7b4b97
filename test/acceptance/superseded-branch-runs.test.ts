/**
 * Issue 32, items 3 and 4, black-box: the compiled runtime as `npm start` runs it, real HTTP,
 * signed `workflow_run` deliveries, every GitHub request counted at the simulator.
 * A branch run a newer commit's run superseded is left alone (a re-run would join that run's
 * concurrency group); the branch head is re-run, judged from the events the intake recorded
 * without asking GitHub. A refused single-job fallback goes on to the whole run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import type { SimRun } from '../sim/runs.js';
import { COMPILED_SECRET, type CompiledRuntime, startCompiledRuntime } from '../support/compiled-runtime.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';
import { UNPACED_ENV } from '../support/harness.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

const INSTALLATION = 9_800;
const LOST = failureAnnotation(TEXT.selfHostedEmptyName);
const RUNS_LISTING = /\/actions\/workflows\/\d+\/runs$/;
/** The App's own request (its JWT), not the installation's: the webhook's delivery log. */
const DELIVERY_LOG = /^\/app\/hook\/deliveries$/;

interface DecisionDetail {
  readonly run_id: number;
  readonly decision: string;
  readonly reason: string;
}

describe('issue 32 through the compiled runtime: superseded branch runs and the whole fallback chain', () => {
  let sim: GitHubSimulator;
  let rt: CompiledRuntime;
  const dir = mkdtempSync(join(tmpdir(), 'reprise-branch-runs-'));
  const events = join(dir, 'events.jsonl');

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: INSTALLATION, account: 'branchy' });
    rt = await startCompiledRuntime(sim, {
      ...UNPACED_ENV,
      RETRY_BUDGET_PER_HOUR: '0',
      BREAKER_MIN_OUTCOMES: '0',
      RECONCILE_INTERVAL_SECONDS: '0',
      EVENTS_FILE: events,
    });
  });
  afterAll(async () => {
    await rt?.stop();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Signs and posts the run's `workflow_run` event with `action`, as GitHub sends it. */
  const deliver = async (run: SimRun, action: 'requested' | 'in_progress' | 'completed'): Promise<number> => {
    const payload = { ...workflowRunPayload(sim, run.id, INSTALLATION), action };
    const answer = await post(`${rt.url}/webhook`, await signedDelivery(COMPILED_SECRET, 'workflow_run', payload));
    return answer.status;
  };

  /** The decision the runtime published for the run, once it has. */
  const decisionOf = async (runId: number): Promise<DecisionDetail> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      let text = '';
      try {
        text = readFileSync(events, 'utf8');
      } catch {
        // Not written yet.
      }
      const found = text
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { detail?: DecisionDetail & { kind?: string } }).detail)
        .find((d) => d?.kind === 'decision' && d.run_id === runId);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no decision for run ${runId} within 60 s:\n${rt.tail()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  /**
   * Delivers the older run's completion: decided `stale` for the newer run, nothing re-run, no
   * POST of any kind for it. Answers the requests GitHub received meanwhile.
   */
  const completesStale = async (older: SimRun, newer: SimRun) => {
    const before = sim.requests.length;
    expect(await deliver(older, 'completed')).toBe(202);
    const decided = await decisionOf(older.id);
    expect(decided.decision).toBe('stale');
    expect(decided.reason).toContain(`newer run ${newer.id} of the same workflow on branch main`);
    const jobs = older.jobs.map((j) => j.id).join('|');
    expect(sim.count('POST', new RegExp(`/actions/(runs/${older.id}|jobs/(${jobs}))/rerun`))).toBe(0);
    expect(sim.rerunTally(older.id).received).toBe(0);
    return sim.requests.slice(before);
  };

  /** A push run of `repo`'s CI on `branch` that lost its runner. */
  const lostPushRun = (repo: string, branch = 'main'): SimRun =>
    sim.addRun({
      repo,
      event: 'push',
      headBranch: branch,
      jobs: [
        { name: 'build', conclusion: 'success' },
        { name: 'deploy', conclusion: 'failure', annotations: [LOST] },
      ],
    });

  it.each([
    ['in progress', 'in_progress', { jobs: [{ name: 'deploy', conclusion: null }] }],
    ['done', 'completed', { jobs: [{ name: 'deploy', conclusion: 'success' }] }],
  ] as const)(
    'item 3: a push run on main with a newer commit’s run (%s) → stale, 0 POSTs, no listing of runs',
    async (label, action, newerSpec) => {
      const repo = `branchy/deploys-${action}`;
      const older = lostPushRun(repo);
      const newer = sim.addRun({ repo, event: 'push', headBranch: 'main', jobs: [...newerSpec.jobs] });
      expect(newer.runNumber).toBeGreaterThan(older.runNumber);
      expect(newer.headSha).not.toBe(older.headSha);
      expect(newer.status).toBe(label === 'done' ? 'completed' : 'in_progress');
      // GitHub announces the newer run when it starts; the older run's completion comes after.
      expect(await deliver(newer, 'requested')).toBe(202);
      expect(await deliver(newer, action)).toBe(202);
      const sent = await completesStale(older, newer);
      expect(sent.filter((r) => RUNS_LISTING.test(r.path))).toEqual([]);
    },
  );

  it('item 3: the same push run as the branch head → re-run, and its warm decision makes ≤ 3 GitHub requests', async () => {
    const repo = 'branchy/head';
    // The first decision of the repository reads its configuration and makes the installation's
    // token: the second, on another branch, is the warm one measured.
    const first = lostPushRun(repo, 'release');
    expect(await deliver(first, 'requested')).toBe(202);
    expect(await deliver(first, 'completed')).toBe(202);
    expect((await decisionOf(first.id)).decision).toBe('retried');

    const head = lostPushRun(repo, 'main');
    // The intake has recorded the branch's runs: this one, from its `requested` event.
    expect(await deliver(head, 'requested')).toBe(202);
    const before = sim.requests.length;
    expect(await deliver(head, 'completed')).toBe(202);
    const decided = await decisionOf(head.id);
    expect(decided.decision).toBe('retried');
    expect(sim.run(head.id).runAttempt).toBe(2);
    const sent = sim.requests.slice(before);
    // Counted apart: the App's read of its delivery log, beside the job listing, on the App's own limit.
    expect(sent.filter((r) => DELIVERY_LOG.test(r.path))).toHaveLength(1);
    const made = sent.filter((r) => !DELIVERY_LOG.test(r.path)).map((r) => `${r.method} ${r.path} ${r.status}`);
    expect(made.length, made.join('\n')).toBeLessThanOrEqual(3);
    expect(made.filter((r) => RUNS_LISTING.test(r.split(' ')[1]!))).toEqual([]);
    expect(sim.count('POST', new RegExp(`/actions/runs/${head.id}/rerun-failed-jobs$`))).toBe(1);
  });

  it('issue 42 point 7: a lost newer-run delivery (no workflow_run event of it reached the runtime; GitHub’s delivery log shows it failed) → stale, 0 POSTs', async () => {
    const repo = 'branchy/lost-delivery';
    const older = lostPushRun(repo);
    expect(await deliver(older, 'requested')).toBe(202);
    // The newer commit's run exists, but every delivery of it failed while the endpoint was down:
    // the intake's record still names the older run as the branch's newest.
    const newer = sim.addRun({ repo, event: 'push', headBranch: 'main', jobs: [{ name: 'deploy', conclusion: null }] });
    expect(newer.runNumber).toBeGreaterThan(older.runNumber);
    for (const action of ['requested', 'in_progress'])
      sim.addDelivery({
        guid: `lost-${newer.id}-${action}`,
        event: 'workflow_run',
        action,
        statusCode: action === 'requested' ? 502 : 0,
        installationId: INSTALLATION,
        repositoryId: sim.repoId(repo),
      });
    const sent = await completesStale(older, newer);
    expect(sent.filter((r) => DELIVERY_LOG.test(r.path))).toHaveLength(1);
    expect(sent.filter((r) => RUNS_LISTING.test(r.path))).toHaveLength(1);
  });

  it('item 3: a branch run whose newer run is of the same commit (a re-trigger) is re-run: one listing settles it', async () => {
    const repo = 'branchy/retrigger';
    const older = lostPushRun(repo);
    const again = sim.addRun({
      repo,
      event: 'workflow_dispatch',
      headBranch: 'main',
      headSha: older.headSha,
      jobs: [{ name: 'deploy', conclusion: 'success' }],
    });
    expect(await deliver(again, 'completed')).toBe(202);
    const before = sim.requests.length;
    expect(await deliver(older, 'completed')).toBe(202);
    expect((await decisionOf(older.id)).decision).toBe('retried');
    expect(sim.requests.slice(before).filter((r) => RUNS_LISTING.test(r.path))).toHaveLength(1);
  });

  it('item 4: failed-jobs 403 → job 403 → whole run 201 → retried_all, one POST each', async () => {
    const repo = 'branchy/fallback';
    sim.setRepoFile(repo, '.github/reprise.yml', 'rerun_all_fallback: true\n');
    const run = sim.addRun({
      repo,
      event: 'push',
      headBranch: 'fallback',
      jobs: [
        { name: 'build', conclusion: 'success' },
        { name: 'test', conclusion: 'cancelled', annotations: [LOST] },
      ],
    });
    const job = run.job('test')!;
    // GitHub sees no failed job to re-run (the only candidate was cancelled) and answers 403 by
    // itself; the single-job re-run is refused as GitHub refuses one it will not re-run.
    sim.injectFault({
      method: 'POST',
      path: new RegExp(`/actions/jobs/${job.id}/rerun$`),
      status: 403,
      message: 'This job cannot be re-run',
      times: 1,
    });
    expect(await deliver(run, 'completed')).toBe(202);
    const decided = await decisionOf(run.id);
    expect(decided.decision).toBe('retried_all');
    expect(sim.count('POST', new RegExp(`/actions/runs/${run.id}/rerun-failed-jobs$`))).toBe(1);
    expect(sim.count('POST', new RegExp(`/actions/jobs/${job.id}/rerun$`))).toBe(1);
    expect(sim.count('POST', new RegExp(`/actions/runs/${run.id}/rerun$`))).toBe(1);
    expect(sim.rerunRequests.filter((r) => r.runId === run.id).map((r) => `${r.kind} ${r.status}`)).toEqual([
      'failed_jobs 403',
      'job 403',
      'run 201',
    ]);
    expect(sim.run(run.id).runAttempt).toBe(2);
  });
});
