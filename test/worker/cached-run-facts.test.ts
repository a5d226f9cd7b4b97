import { describe, expect, it } from 'vitest';
import {
  encodeCachedFacts,
  type CachedRunFacts,
  readCachedFacts,
  resumeFromCache,
} from '../../lib/worker/cached-run-facts.js';
import type { JobFacts } from '../../lib/model.js';
import { config, failedJob, jobVerdict, runMessage } from '../support/fixtures.js';
import { fakeRepoApi, fakeWorld } from '../support/fakes/context.js';
import type { DeliveryGap } from '../../lib/decide/delivery-gap.js';
import { appRequestsOf } from '../../lib/worker/evaluate.js';

const msg = runMessage({ runAttempt: 1 });
const lostJob = failedJob({ runAttempt: 1 });
const cached: CachedRunFacts = {
  config: config({ textOnlyMaxAttempts: 3 }),
  configError: 'reprise.yml: line 3: not a list',
  configErrorRaw: 'line 3: not a list',
  verdicts: [jobVerdict(lostJob, 'infra', 'annotations', { evidence: 'The runner lost communication' })],
  unexamined: 2,
  requests: 2,
};
/** The run's latest jobs as GitHub lists them at the turn. */
const listing = (jobs: JobFacts[]) => fakeRepoApi({ latestJobs: async () => ({ jobs }) });

describe('resuming a wait from the run facts it cached', () => {
  it('the cached facts survive the ledger as text; another version is not read, and the resumed pass decides afresh', () => {
    const text = encodeCachedFacts(cached);
    expect(readCachedFacts(text)).toMatchObject({ ...cached, config: { ...cached.config, extraPatterns: [] } });
    expect(readCachedFacts(text.replace('"v":1', '"v":2'))).toBeUndefined();
    expect(readCachedFacts('not json')).toBeUndefined();
    expect(readCachedFacts(undefined)).toBeUndefined();
  });

  it('the pass after a wait reads the run once (one listing) and asks for the re-run with the cached verdicts, configuration and requests', async () => {
    const w = fakeWorld();
    const api = listing([lostJob]);
    // Cached without an ETag (a listing of more than one page, or facts cached before ETags were): the listing is unconditional.
    const judged = await resumeFromCache(msg, cached, api, w.ctx);
    expect(api.readsSent).toEqual(['latestJobs']);
    expect(judged.step).toMatchObject({ kind: 'rerun', evidence: 'text' });
    expect(judged).toMatchObject({
      config: cached.config,
      configError: cached.configError,
      configErrorRaw: cached.configErrorRaw,
      verdicts: cached.verdicts,
      unexamined: 2,
      priorRequests: 2,
    });
  });

  it('with the first listing’s ETag cached, the pass after a wait lists on the condition that it changed: unchanged (GitHub’s 304) lets the cached jobs stand, and the re-run is asked', async () => {
    const w = fakeWorld();
    const tag = 'W/"first-listing"';
    const asked: string[] = [];
    const api = fakeRepoApi({
      latestJobsIfChanged: async (_run: number, etag: string) => {
        asked.push(etag);
        return { kind: 'unchanged' };
      },
    });
    const text = encodeCachedFacts({ ...cached, listingEtag: tag });
    expect(readCachedFacts(text)?.listingEtag).toBe(tag);
    const judged = await resumeFromCache(msg, readCachedFacts(text)!, api, w.ctx);
    expect(api.readsSent).toEqual(['latestJobsIfChanged']);
    expect(asked).toEqual([tag]);
    expect(judged.step).toMatchObject({ kind: 'rerun', evidence: 'text' });
    expect(judged.facts.run).toMatchObject({ status: 'completed', runAttempt: 1 });
    expect(judged.facts.jobs).toEqual([lostJob]);
    // A turn that must wait again keeps the same ETag.
    expect(judged.listingEtag).toBe(tag);
  });

  it('with the ETag cached, a listing that changed meanwhile (a person re-ran the run) is seen: the new listing is decided on, a duplicate', async () => {
    const w = fakeWorld();
    const api = fakeRepoApi({
      latestJobsIfChanged: async () => ({ kind: 'listed', jobs: [{ ...lostJob, runAttempt: 2 }], etag: 'W/"new"' }),
    });
    const judged = await resumeFromCache(msg, { ...cached, listingEtag: 'W/"first-listing"' }, api, w.ctx);
    expect(api.readsSent).toEqual(['latestJobsIfChanged']);
    expect(judged.step).toMatchObject({ kind: 'final', decision: 'duplicate' });
  });

  it('with the ETag cached, a listing that changed but still stands at the attempt (a job re-run and ended again) is decided on the new listing: a job running again is run_incomplete', async () => {
    const w = fakeWorld();
    const api = fakeRepoApi({
      latestJobsIfChanged: async () => ({
        kind: 'listed',
        jobs: [{ ...lostJob, status: 'in_progress', conclusion: null }],
        etag: 'W/"new"',
      }),
    });
    const judged = await resumeFromCache(msg, { ...cached, listingEtag: 'W/"first-listing"' }, api, w.ctx);
    expect(judged.step).toMatchObject({ kind: 'final', decision: 'run_incomplete' });
  });

  it('a run re-run by someone else meanwhile (a job listed for a newer attempt) is a duplicate', async () => {
    const w = fakeWorld();
    const judged = await resumeFromCache(msg, cached, listing([{ ...lostJob, runAttempt: 2 }]), w.ctx);
    expect(judged.step).toMatchObject({ kind: 'final', decision: 'duplicate' });
  });

  it('the budget and the breaker are read afresh: a pause that began meanwhile makes the run wait', async () => {
    const w = fakeWorld();
    const until = w.clock.now() + 30 * 60_000;
    w.outcomes.pause(until);
    const judged = await resumeFromCache(msg, cached, listing([lostJob]), w.ctx);
    expect(judged.step).toMatchObject({ kind: 'wait', untilMs: until });
  });

  it('a budget spent meanwhile stops the run', async () => {
    const w = fakeWorld({ budgetPerHour: 1 });
    await w.budget.take(msg.installationId, 'another-run');
    const judged = await resumeFromCache(msg, cached, listing([lostJob]), w.ctx);
    expect(judged.step).toMatchObject({ kind: 'final', decision: 'budget_exhausted' });
  });
});

describe('issue 42 point 7: the turn after a wait checks the belief again (the record, then GitHub’s delivery log)', () => {
  const branchMsg = runMessage({ runAttempt: 1, runNumber: 40 });
  const self = { runId: branchMsg.runId, runNumber: 40, headSha: branchMsg.headSha };
  const newer = { runId: 9002, runNumber: 41, headSha: 'beef00000000000000000000000000000000beef' };
  const newerListed = {
    id: newer.runId,
    runNumber: newer.runNumber,
    event: 'push',
    createdAt: '2026-10-02T16:20:00Z',
    headSha: newer.headSha,
    headBranch: 'main',
    headRepositoryId: branchMsg.repository.id,
  };
  const lostDelivery: DeliveryGap = {
    kind: 'missed',
    guid: 'lost-newer',
    statusCode: 502,
    deliveredAt: '2026-10-02T16:20:01Z',
    appRequests: 1,
  };
  /** A world whose record of the branch names `recorded`, and whose delivery log says `gap`. */
  const world = (recorded: typeof self | undefined, gap: DeliveryGap) => {
    const w = fakeWorld();
    const logReads: number[] = [];
    const ctx = {
      ...w.ctx,
      stores: { ...w.ctx.stores, branchRuns: { newest: () => Promise.resolve(recorded) } },
      github: {
        ...w.ctx.github,
        deliveryLog: (scope: { sinceMs: number }) => {
          logReads.push(scope.sinceMs);
          return Promise.resolve(gap);
        },
      },
    };
    return { w, ctx, logReads };
  };

  it('a newer run the intake recorded during the wait → stale at the turn, from the record: no listing', async () => {
    const { ctx } = world(newer, { kind: 'none', appRequests: 1 });
    const api = listing([lostJob]);
    const judged = await resumeFromCache(branchMsg, cached, api, ctx);
    expect(judged.step).toMatchObject({ kind: 'final', decision: 'stale' });
    expect(api.readsSent).toEqual(['latestJobs']);
  });

  it('the record still names the run current but a workflow_run delivery failed since it started → one listing decides: stale', async () => {
    const { ctx, logReads, w } = world(self, lostDelivery);
    const api = fakeRepoApi({ latestJobs: async () => ({ jobs: [lostJob] }), workflowRuns: async () => [newerListed] });
    const judged = await resumeFromCache(branchMsg, cached, api, ctx);
    expect(judged.step).toMatchObject({ kind: 'final', decision: 'stale' });
    expect(api.readsSent).toEqual(['latestJobs', 'workflowRuns']);
    // Read since the run started, once, beside the turn's listing; its App request counted apart.
    expect(logReads).toEqual([Date.parse(branchMsg.createdAt!)]);
    expect(await appRequestsOf(judged)).toBe(1);
    expect(w.log.lines.some((l) => l.failed_delivery === 'lost-newer')).toBe(true);
  });

  it('the record names it current and the log shows no failed delivery → re-run asked, no listing; the App’s requests before and at the turn add up apart from the installation’s', async () => {
    const { ctx, logReads } = world(self, { kind: 'none', appRequests: 1 });
    const api = listing([lostJob]);
    const judged = await resumeFromCache(branchMsg, { ...cached, appRequests: 1 }, api, ctx);
    expect(judged.step).toMatchObject({ kind: 'rerun' });
    expect(api.readsSent).toEqual(['latestJobs']);
    expect(logReads).toHaveLength(1);
    expect(judged.priorRequests).toBe(2);
    expect(await appRequestsOf(judged)).toBe(2);
  });

  it('the record cannot place the run: the check before the wait stands (no listing again at the installation’s cost), and the log line says so', async () => {
    const { ctx, w } = world(undefined, lostDelivery);
    const api = listing([lostJob]);
    const judged = await resumeFromCache(branchMsg, cached, api, ctx);
    expect(judged.step).toMatchObject({ kind: 'rerun' });
    expect(api.readsSent).toEqual(['latestJobs']);
    expect(
      w.log.named('the record cannot place the run at its turn: the staleness check before the wait stands'),
    ).toHaveLength(1);
  });

  it('a pull request’s run keeps the check made before the wait: the delivery log is not read', async () => {
    const { ctx, logReads } = world(self, lostDelivery);
    const prMsg = runMessage({ runAttempt: 1, runNumber: 40, event: 'pull_request', pullRequests: [12] });
    const judged = await resumeFromCache(prMsg, cached, listing([lostJob]), ctx);
    expect(judged.step).toMatchObject({ kind: 'rerun' });
    expect(logReads).toEqual([]);
  });
});
