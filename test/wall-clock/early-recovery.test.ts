/**
 * Issue 40, black-box on the wall clock: the compiled runtime as `npm start` runs it, real HTTP,
 * the GitHub simulator playing GitHub's job lease (shortened to LEASE_MS) and cancel timeout,
 * every `workflow_job` and `workflow_run` delivery sent twice under distinct GUIDs, and what
 * GitHub received counted at the simulator. Each case is its own repository; all run at once,
 * from one signal moment, so the whole file takes about one lease.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import type { SimRun } from '../sim/runs.js';
import { COMPILED_SECRET, type CompiledRuntime, startCompiledRuntime } from '../support/compiled-runtime.js';
import { INSTALLATION_ID } from '../support/harness.js';
import { announceJobs, deliverLeaseEnds, loseRunner, until } from '../support/lease-runs.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

/** GitHub's lease is ten minutes and its cancel timeout five: shortened, in the same proportion. */
const LEASE_MS = 100_000;
const CANCEL_TIMEOUT_MS = 60_000;
const SIBLING_RUNS_MS = 40_000;
const SIGNAL_SECRET = 'early-recovery-signal-secret';

let sim: GitHubSimulator;
let rt: CompiledRuntime;
const dir = mkdtempSync(join(tmpdir(), 'reprise-early-recovery-'));
const EVENTS = join(dir, 'events.jsonl');

interface DecisionDetail {
  readonly kind: string;
  readonly run_id: number;
  readonly decision: string;
  readonly recovery?: { early: boolean; seconds_to_rerun: number | null; waited_for_github_seconds: number | null };
}

/** The decisions the runtime published for the run, in order. */
const decisionsOf = (runId: number): DecisionDetail[] =>
  readFileSync(EVENTS, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { detail: DecisionDetail }).detail)
    .filter((d) => d.kind === 'decision' && d.run_id === runId);
let seq = 0;
const world = () => ({ sim, url: rt.url });

interface Case {
  readonly run: SimRun;
  readonly runner: string;
}

const cases = new Map<string, Case>();
/** When the signals were posted: every case's runner died at this moment. */
let t0 = 0;
let siblingEndedAt = 0;

/** A run of its own repository: `build` on a runner that will die, `others` beside it. */
async function startCase(
  name: string,
  config: string | null,
  others: { name: string; done?: boolean }[] = [],
  headBranch = `case-${name}`,
): Promise<Case> {
  const repo = `acme/recovery-${name}`;
  if (config !== null) sim.setRepoFile(repo, '.github/reprise.yml', config);
  const runner = `ghr-i-0${(++seq).toString(16).padStart(16, 'c')}`;
  const run = sim.addRun({
    repo,
    headBranch,
    jobs: [
      { name: 'build', conclusion: null, status: 'in_progress', runnerName: runner },
      ...others.map((o) =>
        o.done
          ? { name: o.name, conclusion: 'success' as const, runnerName: `healthy-${o.name}-${seq}` }
          : { name: o.name, conclusion: null, status: 'in_progress' as const, runnerName: `healthy-${o.name}-${seq}` },
      ),
    ],
  });
  await announceJobs(world(), run);
  const c = { run, runner };
  cases.set(name, c);
  return c;
}

const forceCancels = (c: Case) => sim.count('POST', new RegExp(`/actions/runs/${c.run.id}/force-cancel$`));
const cancels = (c: Case) => sim.count('POST', new RegExp(`/actions/runs/${c.run.id}/(force-)?cancel$`));
const rerunPosts = (c: Case) => sim.count('POST', new RegExp(`/actions/(runs/${c.run.id}/rerun|jobs/\\d+/rerun)`));
const reruns = (c: Case) => sim.reruns.filter((r) => r.runId === c.run.id);

beforeAll(async () => {
  // GitHub's secondary limit on content-generating requests is on, and reprise runs at its default pace.
  sim = await GitHubSimulator.start({ contentLimit: { limit: 80 } });
  sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
  // Re-running the failed jobs after a force-cancel re-runs the cancelled ones too (docs/design.md, §1).
  sim.rerunFailedJobsIncludesCancelled = true;
  sim.lease.options = { leaseMs: LEASE_MS, cancelTimeoutMs: CANCEL_TIMEOUT_MS };
  rt = await startCompiledRuntime(sim, {
    RETRY_BUDGET_PER_HOUR: '0',
    BREAKER_MIN_OUTCOMES: '0',
    RECONCILE_INTERVAL_SECONDS: '0',
    SIGNAL_SECRET,
    EVENTS_FILE: EVENTS,
  });
  deliverLeaseEnds(world());

  await startCase('last-job', 'early_recovery: last_job\n', [{ name: 'lint', done: true }]);
  await startCase('sibling', 'early_recovery: last_job\n', [{ name: 'test' }]);
  await startCase('passed-first', 'early_recovery: last_job\n', [{ name: 'deploy' }]);
  await startCase('refusing', 'early_recovery: last_job\n');
  await startCase('off', null);
  await startCase('now', 'early_recovery: now\n', [{ name: 'test' }]);
  await startCase('dry-run', 'early_recovery: last_job\ndry_run: true\n');
  // A newer commit's run of the same branch: the intake hears of it before the signal.
  const stale = await startCase('stale', 'early_recovery: last_job\n', [], 'main');
  const newer = sim.addRun({ repo: stale.run.repo, headBranch: 'main', jobs: [{ name: 'build', conclusion: null }] });
  const requested = { ...workflowRunPayload(sim, newer.id, INSTALLATION_ID), action: 'requested' };
  await post(`${rt.url}/webhook`, await signedDelivery(COMPILED_SECRET, 'workflow_run', requested));

  // GitHub answers every force-cancel of this run with a server error.
  const refusing = cases.get('refusing')!;
  sim.injectFault({
    method: 'POST',
    path: new RegExp(`/actions/runs/${refusing.run.id}/force-cancel$`),
    status: 500,
    message: 'Server Error',
    times: 100,
  });

  // The job of 'passed-first' passed before its runner went away; the completion was never delivered.
  const passed = cases.get('passed-first')!;
  const build = passed.run.job('build')!;
  Object.assign(build, { status: 'completed', conclusion: 'success', completedAt: new Date().toISOString() });

  t0 = Date.now();
  for (const c of cases.values()) expect(await loseRunner(world(), c.runner, SIGNAL_SECRET)).toBe(202);
  // The job beside the one that passed first ends well after the signal.
  setTimeout(() => sim.lease.finish(passed.run, 'deploy'), 20_000).unref();
  // The healthy sibling of 'sibling' runs on for a while, then passes.
  const sibling = cases.get('sibling')!;
  setTimeout(() => {
    siblingEndedAt = Date.now();
    sim.lease.finish(sibling.run, 'test');
  }, SIBLING_RUNS_MS).unref();
  // Everything settles within one lease, a cancel timeout's margin after it.
  await until(
    () =>
      [...cases.values()].every((c) => sim.run(c.run.id).runAttempt > 1 || sim.run(c.run.id).status === 'completed'),
    LEASE_MS + 30_000,
  );
  await new Promise((r) => setTimeout(r, 10_000));
}, LEASE_MS + 120_000);

afterAll(async () => {
  await rt?.stop();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const secondsAfter = (from: number, c: Case) => (reruns(c)[0]!.at - from) / 1000;

describe('issue 40 through the compiled runtime: recover before GitHub notices', () => {
  it('the last job on a dead runner is re-run within 45 s of the signal (the lease is 100 s): one force-cancel, one re-run', () => {
    const c = cases.get('last-job')!;
    expect(forceCancels(c)).toBe(1);
    expect(rerunPosts(c)).toBe(1);
    expect(reruns(c)).toHaveLength(1);
    expect(secondsAfter(t0, c)).toBeLessThan(45);
    expect(reruns(c)[0]).toMatchObject({ jobsRerun: ['build'], jobsKept: ['lint'] });
    // The decision carries its time to recovery, counted from the loss.
    const [decided] = decisionsOf(c.run.id);
    expect(decided).toMatchObject({ decision: 'retried', recovery: { early: true, waited_for_github_seconds: null } });
    expect(decided!.recovery!.seconds_to_rerun).toBeLessThan(45);
  });

  it('a healthy sibling running 40 s → nothing cancelled while it runs, it keeps its success, re-run within 30 s of its end', () => {
    const c = cases.get('sibling')!;
    const firstCancel = sim.requests.find(
      (r) => r.method === 'POST' && r.path.endsWith(`/runs/${c.run.id}/force-cancel`),
    );
    expect(siblingEndedAt).toBeGreaterThan(0);
    expect(firstCancel?.at).toBeGreaterThanOrEqual(siblingEndedAt);
    expect(forceCancels(c)).toBe(1);
    expect(reruns(c)).toHaveLength(1);
    expect(reruns(c)[0]).toMatchObject({ jobsRerun: ['build'], jobsKept: ['test'] });
    expect(
      sim
        .run(c.run.id)
        .attempt(1)!
        .jobs.find((j) => j.name === 'test'),
    ).toMatchObject({ conclusion: 'success' });
    expect(secondsAfter(siblingEndedAt, c)).toBeLessThan(30);
  });

  it('a runner that goes away after its job passed → nothing', () => {
    const c = cases.get('passed-first')!;
    expect(cancels(c)).toBe(0);
    expect(rerunPosts(c)).toBe(0);
  });

  it('GitHub refusing every cancel → at most 3 cancel calls, then one re-run after the lease', () => {
    const c = cases.get('refusing')!;
    expect(cancels(c)).toBeGreaterThanOrEqual(1);
    expect(cancels(c)).toBeLessThanOrEqual(3);
    expect(reruns(c)).toHaveLength(1);
    expect(secondsAfter(t0, c)).toBeGreaterThanOrEqual(LEASE_MS / 1000);
  });

  it('a superseded run → nothing: never cancelled, never re-run', () => {
    const c = cases.get('stale')!;
    expect(cancels(c)).toBe(0);
    expect(rerunPosts(c)).toBe(0);
  });

  it('off → today’s behaviour: nothing cancelled, one re-run once GitHub fails the job at the lease', () => {
    const c = cases.get('off')!;
    expect(cancels(c)).toBe(0);
    expect(reruns(c)).toHaveLength(1);
    expect(secondsAfter(t0, c)).toBeGreaterThanOrEqual(LEASE_MS / 1000);
    // What turning early recovery on would have saved: the minutes GitHub took to fail the job.
    const [decided] = decisionsOf(c.run.id);
    expect(decided).toMatchObject({ decision: 'retried', recovery: { early: false } });
    expect(decided!.recovery!.waited_for_github_seconds).toBeGreaterThanOrEqual(LEASE_MS / 1000 - 2);
  });

  it('now, with a healthy sibling running → re-run within 45 s of the signal, the sibling cancelled and re-run too', () => {
    const c = cases.get('now')!;
    expect(forceCancels(c)).toBe(1);
    expect(reruns(c)).toHaveLength(1);
    expect(secondsAfter(t0, c)).toBeLessThan(45);
    expect([...reruns(c)[0]!.jobsRerun].sort()).toEqual(['build', 'test']);
  });

  it('dry_run → nothing sent', () => {
    const c = cases.get('dry-run')!;
    expect(cancels(c)).toBe(0);
    expect(rerunPosts(c)).toBe(0);
  });

  it('GitHub refused nothing past its secondary limit, and every run was re-run at most once', () => {
    expect(sim.contentLimit).toMatchObject({ refused: 0 });
    for (const c of cases.values()) expect(reruns(c).length, c.run.repo).toBeLessThanOrEqual(1);
  });
});
