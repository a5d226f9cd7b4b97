import { describe, expect, it } from 'vitest';
import type { RepoConfig } from '../../lib/config/repo-config.js';
import type { JobFacts, RunFacts } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { decisionLine } from '../../lib/worker/context.js';
import { type EvaluationDeps, evaluateAfresh, evaluateRun } from '../../lib/worker/evaluate.js';
import { ann, config, failedJob, runFacts, runMessage } from '../support/fixtures.js';
import { TEXT } from '../support/evidence.js';
import { fakeRepoApi, fakeWorld } from '../support/fakes/context.js';
import { MemoryLog } from '../support/memory-log.js';

const LOST = [ann(TEXT.selfHostedNamed())];
const cfg = (over: Partial<RepoConfig> = {}) => config({ staleCheck: 'off', ...over });

function deps(over: Partial<EvaluationDeps> = {}) {
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  const d: EvaluationDeps = {
    signalWindow: { beforeMs: 300_000, afterMs: 120_000 },
    logHosts: [],
    logWindowBytes: 1024,
    log,
    metrics,
    ...over,
  };
  return { d, log, metrics };
}

/** GitHub reads of a run whose one job lost its runner: its latest jobs, and their annotations. */
function lostRunReads(job: JobFacts = failedJob()) {
  return {
    job,
    api: fakeRepoApi({
      latestJobs: async () => ({ jobs: [job] }),
      annotationsByGraphql: async () => new Map([[job.id, LOST]]),
    }),
  };
}

const openBreaker = (openUntil: number | null, tripped = false) => ({
  state: async () => ({ openUntil, outcomes: 10, lostAgain: 8, windowMs: 3_600_000, tripped }),
  look: async () => [],
});

describe('evaluating a run: the facts the decision asks for, and no more', () => {
  it('a run lost to infrastructure asks for a re-run: its latest jobs answer for the run and its jobs, in one listing', async () => {
    const { job, api } = lostRunReads();
    const ev = await evaluateRun({ message: runMessage(), config: cfg() }, api, deps().d);
    expect(ev.step).toMatchObject({ kind: 'rerun' });
    expect(ev.verdicts).toEqual([
      expect.objectContaining({ job: expect.objectContaining({ id: job.id }), verdict: 'infra' }),
    ]);
    expect(ev.facts.run).toMatchObject({ status: 'completed', runAttempt: 1 });
    // No budget store: no ceiling; no breaker: never paused.
    expect(ev.facts.budget).toEqual({ limit: 0, used: 0 });
    expect(ev.facts.breaker).toMatchObject({ openUntil: null });
    expect(api.readsSent).toEqual(['latestJobs', 'annotationsByGraphql']);
  });

  it('a message without the run’s creation time reads the run, then the attempt’s jobs', async () => {
    const job = failedJob();
    const run: RunFacts = runFacts();
    const api = fakeRepoApi({
      getRun: async () => run,
      listAttemptJobs: async () => [job],
      annotationsByGraphql: async () => new Map([[job.id, LOST]]),
    });
    const ev = await evaluateRun({ message: runMessage({ createdAt: undefined }), config: cfg() }, api, deps().d);
    expect(ev.step.kind).toBe('rerun');
    expect(api.readsSent).toEqual(['getRun', 'listAttemptJobs', 'annotationsByGraphql']);
  });

  it('latest jobs listed at a newer attempt answer duplicate, and the jobs are not read', async () => {
    const api = fakeRepoApi({ latestJobs: async () => ({ jobs: [failedJob({ runAttempt: 2 })] }) });
    const ev = await evaluateRun({ message: runMessage(), config: cfg() }, api, deps().d);
    expect(ev.step).toMatchObject({ kind: 'final', decision: 'duplicate' });
    expect(ev.facts.jobs).toBeUndefined();
    expect(api.readsSent).toEqual(['latestJobs']);
  });

  it('the listing’s ETag is noted when the run was read off it, for the turn after a wait; none from a listing of a newer attempt or without one', async () => {
    const job = failedJob();
    const tag = 'W/"a1b2"';
    const tagged = fakeRepoApi({
      latestJobs: async () => ({ jobs: [job], etag: tag }),
      annotationsByGraphql: async () => new Map([[job.id, LOST]]),
    });
    const ev = await evaluateRun({ message: runMessage(), config: cfg() }, tagged, deps().d);
    expect(ev.step.kind).toBe('rerun');
    expect(ev.listingEtag).toBe(tag);
    const moved = fakeRepoApi({ latestJobs: async () => ({ jobs: [failedJob({ runAttempt: 2 })], etag: tag }) });
    expect((await evaluateRun({ message: runMessage(), config: cfg() }, moved, deps().d)).listingEtag).toBeUndefined();
    expect(
      (await evaluateRun({ message: runMessage(), config: cfg() }, lostRunReads().api, deps().d)).listingEtag,
    ).toBeUndefined();
  });

  it('a repository outside the allow-list is ignored before anything is read', async () => {
    const api = fakeRepoApi({});
    const ev = await evaluateRun({ message: runMessage(), config: cfg(), repositoryAllowed: false }, api, deps().d);
    expect(ev.step).toMatchObject({ kind: 'final', decision: 'ignored' });
    expect(api.readsSent).toEqual([]);
  });

  it('a spent budget is final before any job is read', async () => {
    const api = fakeRepoApi({ latestJobs: async () => ({ jobs: [failedJob()] }) });
    const budget = { usage: async () => ({ limit: 5, used: 5 }) } as unknown as EvaluationDeps['budget'];
    const ev = await evaluateRun({ message: runMessage(), config: cfg() }, api, deps({ budget }).d);
    expect(ev.step).toMatchObject({ kind: 'final', decision: 'budget_exhausted' });
    expect(api.readsSent).toEqual(['latestJobs']);
  });

  it('verdicts kept from before a wait are not gathered again', async () => {
    const job = failedJob();
    const api = fakeRepoApi({ latestJobs: async () => ({ jobs: [job] }) });
    const kept = [{ job, verdict: 'infra' as const, source: 'annotations' as const, evidence: 'pattern x' }];
    const ev = await evaluateRun({ message: runMessage(), config: cfg(), verdicts: kept }, api, deps().d);
    expect(ev.step.kind).toBe('rerun');
    expect(ev.verdicts).toEqual(kept);
    expect(api.readsSent).toEqual(['latestJobs']);
  });

  it('an open breaker makes the run wait until it closes; the read that opened it is logged and counted', async () => {
    const { api } = lostRunReads();
    const until = Date.parse('2026-10-02T17:00:00Z');
    const { d, log, metrics } = deps({ breaker: openBreaker(until, true) });
    const ev = await evaluateRun({ message: runMessage(), config: cfg() }, api, d);
    expect(ev.step).toMatchObject({ kind: 'wait', untilMs: until });
    expect(log.named('breaker opened: automatic re-runs of this installation pause')).toEqual([
      expect.objectContaining({ installation_id: 42, until: '2026-10-02T17:00:00.000Z', lost_again: 8 }),
    ]);
    expect(metrics.get('BreakerOpen')).toBe(1);
  });

  it('a breaker already open is not logged as opening again', async () => {
    const { api } = lostRunReads();
    const { d, log, metrics } = deps({ breaker: openBreaker(Date.parse('2026-10-02T17:00:00Z'), false) });
    expect((await evaluateRun({ message: runMessage(), config: cfg() }, api, d)).step.kind).toBe('wait');
    expect(log.lines).toEqual([]);
    expect(metrics.get('BreakerOpen')).toBe(0);
  });
});

describe('the first look at an attempt: its configuration, then the evaluation', () => {
  function afresh(load: () => Promise<unknown>, over: { allowList?: readonly string[] } = {}) {
    const w = fakeWorld({ ...(over.allowList && { repositoryAllowList: over.allowList }) });
    const ctx = {
      ...w.ctx,
      stores: { ...w.ctx.stores, repoConfig: { load } as unknown as typeof w.ctx.stores.repoConfig },
    };
    return { w, ctx };
  }

  it('reads the configuration and the latest jobs, and judges from a fresh start', async () => {
    const { api } = lostRunReads();
    const { ctx } = afresh(async () => ({ config: cfg() }));
    const msg = runMessage();
    const judged = await evaluateAfresh(msg, api, ctx, decisionLine(msg));
    expect(judged).toMatchObject({ step: { kind: 'rerun' }, priorRequests: 0, config: { staleCheck: 'off' } });
    expect(judged.configError).toBeUndefined();
    expect(api.readsSent).toEqual(['latestJobs', 'annotationsByGraphql']);
  });

  it('a configuration error is logged, failing closed, and named in what the decision knows', async () => {
    const api = fakeRepoApi({ latestJobs: async () => ({ jobs: [failedJob()] }) });
    const { w, ctx } = afresh(async () => ({ config: cfg({ enabled: false }), error: 'max_attempts: not a number' }));
    const msg = runMessage();
    const judged = await evaluateAfresh(msg, api, ctx, decisionLine(msg));
    expect(judged.step).toMatchObject({ kind: 'final', decision: 'ignored' });
    expect(judged.configError).toBe('configuration error, runs are left alone: max_attempts: not a number');
    expect(judged.configErrorRaw).toBe('max_attempts: not a number');
    expect(w.log.named('configuration error; failing closed')).toEqual([
      expect.objectContaining({ level: 'error', error: 'max_attempts: not a number', run_id: msg.runId }),
    ]);
  });

  it('settings lowered to the operator’s ceiling are logged and kept with the judgement', async () => {
    const { api } = lostRunReads();
    const { w, ctx } = afresh(async () => ({ config: cfg(), clamped: ['max_attempts 9 → 3'] }));
    const msg = runMessage();
    const judged = await evaluateAfresh(msg, api, ctx, decisionLine(msg));
    expect(judged.clamped).toEqual(['max_attempts 9 → 3']);
    expect(w.log.named('repository settings clamped to the ceiling')).toEqual([
      expect.objectContaining({ clamped: ['max_attempts 9 → 3'] }),
    ]);
  });

  it('a repository outside the allow-list: its jobs are never listed', async () => {
    const api = fakeRepoApi({});
    const { ctx } = afresh(async () => ({ config: cfg() }), { allowList: ['acme/other'] });
    const msg = runMessage();
    const judged = await evaluateAfresh(msg, api, ctx, decisionLine(msg));
    expect(judged.step).toMatchObject({ kind: 'final', decision: 'ignored' });
    expect(api.readsSent).toEqual([]);
  });
});
