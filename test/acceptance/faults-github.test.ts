import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { type Harness, startHarness } from '../support/harness.js';
import {
  audit,
  conditionalRates,
  type FaultRuntime,
  planRuns,
  printSummary,
  settle,
  startFaultRuntime,
  sweepFigures,
  undecidedDetail,
} from '../support/faults.js';
import { errorLine, TEXT } from '../support/evidence.js';

const RUNS = 120;
const LEASE_MS = 1_000;
// Every path, the job-log host included, for server errors; the API only for rate limits
// (the log host is blob storage, which never answers GitHub's rate-limit 403).
const ANY = /.*/;
const API = /^\/(?!_logs\/)/;
const FAULTS = [
  { share: 0.1, status: 502, path: ANY },
  { share: 0.05, status: 503, path: ANY },
  { share: 0.05, status: 500, path: ANY },
  // A short retry-after is waited in process; a long one sends the message back to the queue.
  {
    share: 0.05,
    status: 403,
    path: API,
    message: 'You have exceeded a secondary rate limit. Please wait.',
    retryAfter: 1,
  },
  { share: 0.05, status: 429, path: API, message: 'API rate limit exceeded for installation.', retryAfter: 30 },
] as const;

describe('fault injection: GitHub answering errors and rate limits', () => {
  let sim: GitHubSimulator;
  let f: FaultRuntime;

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.setSeed(20261002);
    // The runtime's visibility timeout (minutes) outlasts the suite, so a message is never
    // decided by two workers at once, however slow the machine. Deferrals are scaled: a
    // retry-after of 30 s hides a message for 1.5 s, the first transient backoff (10 s) for 0.5 s.
    f = await startFaultRuntime(sim, {
      workerConcurrency: 10,
      maxReceiveCount: 10,
      deferUnitMs: 50,
      leaseMs: LEASE_MS,
    });
  });
  afterAll(async () => {
    await f?.close();
    await sim?.close();
  });

  it('GitHub answering 20% 5xx and 10% 403/429 with retry-after: every decision eventually made and correct; none lost; none doubled', async () => {
    const runs = planRuns(sim, { count: RUNS, seed: 424242, installations: 12, prefix: 'flaky' });
    const rates = conditionalRates(FAULTS.map((x) => x.share));
    FAULTS.forEach((x, i) =>
      sim.injectFault({
        path: x.path,
        status: x.status,
        rate: rates[i],
        ...('message' in x && { message: x.message, retryAfter: x.retryAfter }),
      }),
    );
    sim.resetRequests();

    const statuses = (await Promise.all(runs.map((run, i) => f.deliver(run, `flaky-delivery-${i}`)))).flat();
    // A re-run call answered 5xx may have gone through: its claim waits for the reconciler.
    const { redriven, sweeps } = await settle(sim, f, runs, { leaseMs: LEASE_MS });

    const faulted = sim.requests.filter((r) => r.status >= 500);
    const rateLimited = sim.requests.filter((r) => r.status === 403 || r.status === 429);
    const a = await audit(sim, f.rt, runs);
    printSummary('GitHub faults', {
      runs: a.runs,
      deliveries: statuses.length,
      'GitHub requests': sim.requests.length,
      'faults injected': `${faulted.length + rateLimited.length} (${faulted.length} 5xx, ${rateLimited.length} 403/429)`,
      'messages deferred for retry-after': f.rt.metrics.get('RateLimited'),
      'transient failures retried': f.rt.metrics.get('TransientFault'),
      'dead-lettered then redriven': redriven,
      ...sweepFigures(sweeps),
      'earned re-runs': a.earned,
      're-runs made': a.rerunsMade,
      're-run requests received': a.rerunRequests,
      'wrong decisions': a.wrong.length,
      duplicates: a.duplicates,
      lost: a.lost,
    });

    expect(statuses.every((s) => s === 202)).toBe(true);
    // Every message was deleted within its visibility timeout, so no two workers ever decided
    // the same message at once (Lambda guarantees this with visibility = 6 × function timeout).
    expect(f.log.named('worker batch failed')).toEqual([]);
    expect(a.wrong).toEqual([]);
    expect(a.undecided, await undecidedDetail(f.rt, runs, a.undecided)).toEqual([]);
    expect(a.duplicates).toBe(0);
    expect(a.spurious).toBe(0);
    expect(a.lost).toBe(0);
    expect(a.rerunsMade).toBe(a.earned);
    expect(a.rerunRequests).toBeGreaterThanOrEqual(a.earned);
    // The faults really happened, at about the rates asked for.
    expect(faulted.length / sim.requests.length).toBeGreaterThan(0.1);
    expect(rateLimited.length / sim.requests.length).toBeGreaterThan(0.05);
  }, 300_000);
});

describe('transient GitHub faults are retried, never taken as evidence', () => {
  const LOST = TEXT.selfHostedNamed('r-1');
  const SHUTDOWN = `${errorLine(TEXT.shutdown)}\n`;
  const RATE_LIMITED = { status: 403, retryAfter: 30, message: 'You have exceeded a secondary rate limit' };
  let h: Harness;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.sim.clearFaults());

  /** One message through a worker; then, faults cleared, the same message again (its retry). */
  async function decideThenRetry(jobs: Parameters<GitHubSimulator['addRun']>[0]['jobs']) {
    const run = h.sim.addRun({ repo: `acme/transient-${++seq}`, jobs });
    const message = h.message(run.id);
    const first = await h.worker()(h.sqsEvent([message]));
    const firstRecord = await h.ledger.attempts.get(message.repository.id, run.id, 1);
    h.sim.clearFaults();
    const second = await h.worker()(h.sqsEvent([message]));
    const record = await h.ledger.attempts.get(message.repository.id, run.id, 1);
    return { run, first, firstRecord, second, record, reruns: h.sim.reruns.filter((r) => r.runId === run.id) };
  }

  it.each([502, 503, 429])(
    'the job-log host answering %i → the message is retried, not decided genuine',
    async (status) => {
      h.sim.injectFault({ path: /^\/_logs\//, status });
      const r = await decideThenRetry([{ name: 't', conclusion: 'failure', annotations: [], log: SHUTDOWN }]);
      expect(r.first.batchItemFailures).toHaveLength(1);
      expect(r.firstRecord).toBeUndefined();
      expect(r.record?.decision).toBe('retried');
      expect(r.reruns).toHaveLength(1);
    },
  );

  it('a rate-limited 403 on the job-log redirect → retried, not read as an unreadable log', async () => {
    h.sim.injectFault({ path: /\/actions\/jobs\/\d+\/logs$/, ...RATE_LIMITED, times: 10 });
    const r = await decideThenRetry([{ name: 't', conclusion: 'failure', annotations: [], log: SHUTDOWN }]);
    expect(r.first.batchItemFailures).toHaveLength(1);
    expect(r.record?.decision).toBe('retried');
  });

  it('a rate-limited 403 on REST annotations → retried, not read as unavailable annotations', async () => {
    h.sim.injectFault({ path: /^\/graphql$/, status: 502, times: 10 });
    h.sim.injectFault({ path: /\/check-runs\/\d+\/annotations$/, ...RATE_LIMITED, times: 10 });
    // With the annotations unreadable, the neutral log would make this job genuine.
    const r = await decideThenRetry([
      { name: 't', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] },
    ]);
    expect(r.first.batchItemFailures).toHaveLength(1);
    expect(r.record?.decision).toBe('retried');
  });

  it('a rate-limited re-run call gives the claim back: the retry re-runs once', async () => {
    h.sim.injectFault({ method: 'POST', path: /rerun-failed-jobs$/, ...RATE_LIMITED, times: 10 });
    const r = await decideThenRetry([
      { name: 't', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] },
    ]);
    expect(r.first.batchItemFailures).toHaveLength(1);
    expect(r.firstRecord).toBeUndefined();
    expect(r.record?.decision).toBe('retried');
    expect(r.reruns).toHaveLength(1);
  });

  it('a 5xx on the re-run call keeps the claim: GitHub may have acted, so the retry never calls again', async () => {
    h.sim.injectFault({ method: 'POST', path: /rerun-failed-jobs$/, status: 502, times: 10 });
    const r = await decideThenRetry([
      { name: 't', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] },
    ]);
    expect(r.first.batchItemFailures).toHaveLength(1);
    expect(r.firstRecord?.state).toBe('claimed');
    expect(r.second.batchItemFailures).toHaveLength(0);
    // One POST: the client never sends a re-run POST again in-process, whatever GitHub answered.
    expect(h.sim.count('POST', new RegExp(`/runs/${r.run.id}/rerun-failed-jobs$`))).toBe(1);
  });
});
