import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRuns, type ListedRun } from '../../lib/backtest/history.js';
import { jobLine, judgeAttempt, messageFor, staleThen } from '../../lib/backtest/judge.js';
import { RepoApi } from '../../lib/github/repo-api.js';
import type { JobFacts, JobVerdict } from '../../lib/model.js';
import { GitHubSimulator } from '../sim/index.js';
import { exitAnnotation, lostAnnotation } from '../support/evidence.js';
import { attempt, run, simContext } from './support.js';

describe('backtest: comparing reprise with people', () => {
  it('staleness as it stood then: a newer run of the workflow on the branch counts only once created before the attempt completed', () => {
    const r = run(1, '2026-03-01T10:00:00Z');
    const failed = attempt(1, '2026-03-01T10:00:00Z', '2026-03-01T10:09:00Z');
    const before = run(2, '2026-03-01T10:05:00Z');
    const after = run(3, '2026-03-01T10:30:00Z');
    const otherBranch = run(4, '2026-03-01T10:05:00Z', { headBranch: 'topic', headSha: 'x' });
    expect(staleThen(r, failed, [r, after, otherBranch])).toEqual({});
    expect(staleThen(r, failed, [r, before, after])).toEqual({ newerRunId: 2 });
  });
});

describe('judge: the facts as they stood when the attempt completed', () => {
  it("staleness: another workflow's or another repository's newer run does not count; the same head sha on another branch does", () => {
    const r = run(1, '2026-03-01T10:00:00Z');
    const failed = attempt(1, '2026-03-01T10:00:00Z', '2026-03-01T10:09:00Z');
    const otherWorkflow = run(2, '2026-03-01T10:05:00Z', { workflowId: 8 });
    const otherRepo = run(3, '2026-03-01T10:05:00Z', { repository: { id: 2, owner: 'acme', name: 'api' } });
    const sameSha = run(5, '2026-03-01T10:05:00Z', { headBranch: 'topic', headSha: 'sha1' });
    expect(staleThen(r, failed, [otherWorkflow, otherRepo])).toEqual({});
    expect(staleThen(r, failed, [sameSha])).toEqual({ newerRunId: 5 });
  });

  it('the message is the intake\'s for that attempt: its number, and "cancelled" kept apart from every other red conclusion', () => {
    const r = run(12, '2026-03-01T10:00:00Z', { pullRequests: [7], event: 'pull_request' });
    const cancelled = attempt(3, '2026-03-01T10:00:00Z', '2026-03-01T10:09:00Z', { conclusion: 'cancelled' });
    const timedOut = attempt(2, '2026-03-01T10:00:00Z', '2026-03-01T10:09:00Z', { conclusion: 'timed_out' });
    expect(messageFor(r, cancelled, 42)).toMatchObject({
      v: 1,
      deliveryId: 'reprise-backtest',
      installationId: 42,
      runId: 12,
      runAttempt: 3,
      conclusion: 'cancelled',
      event: 'pull_request',
      pullRequests: [7],
      workflow: { id: 7, name: 'CI', path: '.github/workflows/ci.yml' },
    });
    expect(messageFor(r, timedOut, null)).toMatchObject({ runAttempt: 2, conclusion: 'failure', installationId: null });
  });

  it("a job's line carries its verdict only when it was a candidate", () => {
    const job = { id: 3, name: 'test', conclusion: 'failure', runnerName: 'r-1' } as JobFacts;
    const verdict = {
      job,
      verdict: 'infra',
      source: 'annotations',
      evidence: 'pattern self-hosted-lost',
      family: 'runner-loss',
      pattern: 'self-hosted-lost',
    } as JobVerdict;
    expect(jobLine(job, verdict)).toEqual({
      name: 'test',
      conclusion: 'failure',
      runner: 'r-1',
      verdict: 'infra',
      source: 'annotations',
      evidence: 'pattern self-hosted-lost',
      family: 'runner-loss',
      pattern: 'self-hosted-lost',
    });
    // A verdict kept by an older version (no family, no pattern) still makes a line.
    const { family: _f, pattern: _p, ...older } = verdict;
    expect(jobLine(job, older as JobVerdict)).toMatchObject({ verdict: 'infra', family: null, pattern: null });
    expect(jobLine({ ...job, conclusion: 'success' }, undefined)).toMatchObject({
      conclusion: 'success',
      verdict: null,
      source: null,
      evidence: null,
      family: null,
      pattern: null,
    });
  });
});

describe('judgeAttempt over the simulated history', () => {
  let sim: GitHubSimulator;
  let ctx: ReturnType<typeof simContext>;
  let runs: ListedRun[];
  const T = Date.parse('2026-03-01T10:00:00Z');
  const at = (min: number) => new Date(T + min * 60_000).toISOString();

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: 77, account: 'acme' });
    sim.addRunHistory({
      repo: 'acme/judge',
      headBranch: 'lost',
      attempts: [
        {
          jobs: [
            { name: 'build', conclusion: 'success' },
            {
              name: 'test',
              conclusion: 'failure',
              runnerName: 'ghr-i-0abc',
              annotations: [lostAnnotation('ghr-i-0abc')],
            },
          ],
          startedAt: at(0),
          completedAt: at(12),
        },
      ],
    });
    sim.addRunHistory({
      repo: 'acme/judge',
      headBranch: 'genuine',
      attempts: [
        {
          jobs: [{ name: 'test', conclusion: 'failure', annotations: [exitAnnotation(1)] }],
          startedAt: at(1),
          completedAt: at(4),
        },
      ],
    });
    ctx = simContext(sim, 77);
    runs = await listRuns(ctx.clients, { owner: 'acme', name: 'judge' }, T - 86_400_000);
  });
  afterAll(async () => {
    await sim.close();
  });

  const judge = (branch: string, dryRun = false) => {
    const r = runs.find((x) => x.headBranch === branch)!;
    return judgeAttempt(
      r,
      r.latest,
      {},
      {
        api: new RepoApi(ctx.clients, 'acme', 'judge', ctx.settings.graphqlUrl),
        config: { ...ctx.settings.defaults, dryRun },
        installationId: 77,
        deps: ctx.evaluation,
      },
    );
  };

  it('a job lost to its runner: the worker would re-run it; every job is listed with its minutes, the passed one without a verdict', async () => {
    const j = await judge('lost');
    expect(j.decision).toBe('dry_run');
    expect(j.wouldRerun).toBe(true);
    expect(j.evidenceGone).toBe(false);
    expect(j.jobs.map((x) => [x.name, x.conclusion, x.verdict, x.minutes])).toEqual([
      ['build', 'success', null, 12],
      ['test', 'failure', 'infra', 12],
    ]);
    expect(j.jobs[1]).toMatchObject({ runner: 'ghr-i-0abc', source: 'annotations' });
    expect(sim.rerunTally(runs.find((x) => x.headBranch === 'lost')!.id).received).toBe(0);
  });

  it('the same loss with dry_run in the configuration itself: dry_run, but not a re-run the worker would make', async () => {
    const j = await judge('lost', true);
    expect(j.decision).toBe('dry_run');
    expect(j.wouldRerun).toBe(false);
  });

  it('a genuine failure is left: genuine_failure, its job judged genuine', async () => {
    const j = await judge('genuine');
    expect(j.decision).toBe('genuine_failure');
    expect(j.wouldRerun).toBe(false);
    expect(j.jobs).toEqual([expect.objectContaining({ name: 'test', verdict: 'genuine', minutes: 3 })]);
  });
});
