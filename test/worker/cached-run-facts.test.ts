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
