import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TIMEOUTS } from '../../infra/reprise.js';
import { DECISION_NEED_MS, GITHUB_REQUEST_TIMEOUT_MS } from '../../lib/config/github-settings.js';
import { RequestTimeoutError, TransientError } from '../../lib/errors.js';
import { createClientFactory } from '../../lib/github/client.js';
import { RepoApi } from '../../lib/github/repo-api.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { messageGroupId } from '../../lib/webhook/run-message.js';
import { errorLine, lostJob, TEXT } from '../support/evidence.js';
import { APP_ID, type Harness, INSTALLATION_ID, startHarness, testPrivateKey } from '../support/harness.js';
import { VirtualClock } from '../support/virtual-clock.js';

/**
 * How slow GitHub is in the batch suites: every request succeeds, since even the two a decision
 * sends at once (their latencies add up on the clock) stay under a request's timeout.
 */
const SLOW_MS = 1_500;
const FUNCTION_TIMEOUT_MS = TIMEOUTS.worker.toMilliseconds();
const MAX_RECEIVE_COUNT = 5;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.sim.latencyMs = 0;
  h.log.clear();
  h.sim.resetRequests();
});

/** Clients whose request timeouts fire on `clock`, and GitHub's latency passing on it too. */
function slowGitHub(clock: VirtualClock) {
  h.sim.latencyWait = async (ms) => clock.advance(ms);
  return createClientFactory({
    apiUrl: h.settings.apiUrl,
    credentials: { kind: 'app', appId: APP_ID, privateKey: testPrivateKey() },
    log: h.log,
    retryBaseMs: 1,
    timeoutSignal: clock.timeout,
  });
}

describe('every GitHub request has a timeout', () => {
  it('a REST call GitHub does not answer within the request timeout is a RequestTimeoutError (transient), sent once, not retried in-process', async () => {
    const clock = new VirtualClock();
    const run = h.sim.addRun({ repo: 'acme/slow-rest', jobs: [lostJob('test', 'runner-1')] });
    const api = new RepoApi(slowGitHub(clock)(INSTALLATION_ID), 'acme', 'slow-rest', h.sim.graphqlUrl);
    await api.getRun(run.id); // the installation token, exchanged while GitHub is fast
    h.sim.resetRequests();

    h.sim.latencyMs = GITHUB_REQUEST_TIMEOUT_MS + 1_000;
    const err = await api.getRun(run.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err).toBeInstanceOf(TransientError);
    expect(h.sim.requests.map((r) => r.path)).toEqual([`/repos/acme/slow-rest/actions/runs/${run.id}`]);
  });

  it('a request answered just within its timeout succeeds', async () => {
    const clock = new VirtualClock();
    const run = h.sim.addRun({ repo: 'acme/just-in-time', jobs: [lostJob('test', 'runner-1')] });
    const api = new RepoApi(slowGitHub(clock)(INSTALLATION_ID), 'acme', 'just-in-time', h.sim.graphqlUrl);
    await api.getRun(run.id);
    h.sim.latencyMs = GITHUB_REQUEST_TIMEOUT_MS - 1;
    await expect(api.getRun(run.id)).resolves.toMatchObject({ id: run.id });
  });

  it('a GraphQL query GitHub does not answer in time is a RequestTimeoutError too', async () => {
    const clock = new VirtualClock();
    const run = h.sim.addRun({ repo: 'acme/slow-graphql', jobs: [lostJob('test', 'runner-1')] });
    const api = new RepoApi(slowGitHub(clock)(INSTALLATION_ID), 'acme', 'slow-graphql', h.sim.graphqlUrl);
    const jobs = await api.listAttemptJobs(run.id, 1);
    h.sim.latencyMs = GITHUB_REQUEST_TIMEOUT_MS + 1_000;
    await expect(api.annotationsByGraphql(jobs)).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it("the job log's host not answering within the request timeout is a RequestTimeoutError, not an unreadable log", async () => {
    const clock = new VirtualClock();
    const run = h.sim.addRun({
      repo: 'acme/slow-log',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [], log: errorLine(TEXT.selfHostedNamed('r-1')) }],
    });
    const api = new RepoApi(slowGitHub(clock)(INSTALLATION_ID), 'acme', 'slow-log', h.sim.graphqlUrl);
    const [job] = await api.listAttemptJobs(run.id, 1);
    // Only the log host is slow: the redirect from the API is answered at once.
    h.sim.latencyMs = 1;
    h.sim.latencyWait = async () => {
      if (h.sim.requests.at(-1)?.path.startsWith('/_logs/')) clock.advance(GITHUB_REQUEST_TIMEOUT_MS + 1_000);
    };
    const opts = { allowHosts: ['127.0.0.1'], windowBytes: 64 * 1024, log: h.log };
    await expect(api.jobLog(job!.id, opts)).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(h.sim.requests.some((r) => r.path.startsWith('/_logs/'))).toBe(true);
  });
});

describe('time-bounded batches', () => {
  it('a decision needs the request timeout times the round trips of a decision; the worker timeout is two such needs', () => {
    expect(DECISION_NEED_MS).toBe(GITHUB_REQUEST_TIMEOUT_MS * 8);
    expect(FUNCTION_TIMEOUT_MS).toBe(2 * DECISION_NEED_MS);
  });

  /**
   * Ten runs lost to a runner whose only evidence is in the job log, one message each, on a FIFO
   * queue whose clock is `clock`. In `one group` a batch decides them one after another, as it
   * does a run's copies and attempts; in `own groups` (each run's own, as the intake sends them)
   * side by side.
   */
  function tenLostRuns(clock: VirtualClock, prefix: string, grouping: 'one group' | 'own groups' = 'one group') {
    const queue = new EmbeddedFifoQueue({
      name: `${prefix}.fifo`,
      visibilityTimeoutMs: 6 * FUNCTION_TIMEOUT_MS,
      maxReceiveCount: MAX_RECEIVE_COUNT,
      now: clock.now,
    });
    const runs = embeddedRunQueue(queue);
    const messages: RunMessage[] = [];
    for (let i = 0; i < 10; i++) {
      const runner = `runner-${prefix}-${i}`;
      const run = h.sim.addRun({
        repo: `acme/${prefix}-${i}`,
        jobs: [{ name: 'test', conclusion: 'failure', annotations: [], log: errorLine(TEXT.selfHostedNamed(runner)) }],
      });
      const m = h.message(run.id);
      messages.push(m);
      void runs.send(m, grouping === 'one group' ? `${prefix}#group` : messageGroupId(m), m.deliveryId);
    }
    return { queue, messages };
  }

  it('a slow GitHub: the worker stops before its deadline and hands the rest of the batch back; no message loses a receive', async () => {
    const clock = new VirtualClock();
    const { queue, messages } = tenLostRuns(clock, 'slow-batch');
    const worker = h.worker({
      client: slowGitHub(clock),
      maxReceiveCount: MAX_RECEIVE_COUNT,
      defer: async (record, seconds) => void queue.changeVisibility(record.receiptHandle, seconds * 1000),
    });
    h.sim.latencyMs = SLOW_MS;

    const invocations: { decided: number; handedBack: number; overrunMs: number }[] = [];
    const decidedOnReceive: number[] = [];
    let claimsOfFirstHandedBack: unknown[] = [];
    for (let i = 0; i < 10 && queue.size() > 0; i++) {
      const records = queue.receive(10);
      expect(records.length).toBeGreaterThan(0); // handed-back messages are visible again at once
      const time = clock.invocation(FUNCTION_TIMEOUT_MS);
      const res = await worker({ Records: records }, time);
      const failed = new Set(res.batchItemFailures.map((f) => f.itemIdentifier));
      for (const r of records) {
        if (failed.has(r.messageId)) continue;
        decidedOnReceive.push(Number(r.attributes.ApproximateReceiveCount));
        queue.delete(r.receiptHandle);
      }
      invocations.push({
        decided: records.length - failed.size,
        handedBack: failed.size,
        overrunMs: clock.now() - time.deadline,
      });
      if (i === 0) {
        const back = messages.filter((m) =>
          records.some((r) => failed.has(r.messageId) && r.body.includes(m.deliveryId)),
        );
        claimsOfFirstHandedBack = await Promise.all(
          back.map((m) => h.ledger.attempts.get(m.repository.id, m.runId, m.runAttempt)),
        );
      }
    }

    // No invocation ran into its timeout, so no batch answer was lost.
    for (const inv of invocations) expect(inv.overrunMs).toBeLessThanOrEqual(0);
    expect(invocations.length).toBeGreaterThan(1);
    expect(invocations[0]!.handedBack).toBeGreaterThan(0);
    // Handed back untouched: no claim was made for them.
    expect(claimsOfFirstHandedBack).toHaveLength(invocations[0]!.handedBack);
    expect(claimsOfFirstHandedBack.every((c) => c === undefined)).toBe(true);
    expect(queue.size()).toBe(0);
    expect(queue.deadLetters).toHaveLength(0);
    // Every message decided once, on a receive well before the redrive.
    expect(decidedOnReceive).toHaveLength(10);
    expect(Math.max(...decidedOnReceive)).toBeLessThan(MAX_RECEIVE_COUNT);
    for (const m of messages) expect(h.sim.reruns.filter((r) => r.runId === m.runId)).toHaveLength(1);
    expect(h.metrics.get('HandedBack')).toBeGreaterThan(0);
    expect(h.log.named('batch cut short: the rest is handed back untouched')).not.toHaveLength(0);
  });

  it('control: the same slow batch decided without the time left runs past the function timeout, where Lambda would lose the whole batch answer', async () => {
    const clock = new VirtualClock();
    const { queue } = tenLostRuns(clock, 'slow-control');
    const worker = h.worker({ client: slowGitHub(clock), maxReceiveCount: MAX_RECEIVE_COUNT });
    h.sim.latencyMs = SLOW_MS;
    const time = clock.invocation(FUNCTION_TIMEOUT_MS);
    const res = await worker({ Records: queue.receive(10) });
    expect(res.batchItemFailures).toEqual([]);
    expect(clock.now() - time.deadline).toBeGreaterThan(0);
  });

  it.each([
    ['own groups', 3, 10],
    ['one group', 1, 2],
  ] as const)(
    'ten runs in %s: a batch decides its FIFO groups side by side and each group in order (GitHub saw between %i and %i requests in flight at once)',
    async (grouping, least, most) => {
      // Counted where GitHub answers: how many requests are being answered at the same time.
      let inFlight = 0;
      let maxInFlight = 0;
      h.sim.latencyWait = async () => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 100));
        inFlight--;
      };
      const clock = new VirtualClock();
      const { queue, messages } = tenLostRuns(clock, `in-flight-${grouping.replace(' ', '-')}`, grouping);
      const worker = h.worker({ maxReceiveCount: MAX_RECEIVE_COUNT });
      h.sim.latencyMs = 1;
      const res = await worker({ Records: queue.receive(10) });
      expect(res.batchItemFailures).toEqual([]);
      for (const m of messages) expect(h.sim.reruns.filter((r) => r.runId === m.runId)).toHaveLength(1);
      expect(maxInFlight).toBeGreaterThanOrEqual(least);
      expect(maxInFlight).toBeLessThanOrEqual(most);
    },
  );

  it('a message handed back on its last receive is logged as going to the dead-letter queue', async () => {
    const clock = new VirtualClock();
    const { queue } = tenLostRuns(clock, 'last-receive');
    // Every record arrives on the receive the worker is told is its last.
    const worker = h.worker({ client: slowGitHub(clock), maxReceiveCount: 1 });
    const res = await worker({ Records: queue.receive(10) }, clock.invocation(1_000));
    expect(res.batchItemFailures).toHaveLength(9);
    expect(h.log.named('message handed back on its last receive; it goes to the dead-letter queue')).toHaveLength(9);
  });

  it('the first message of a batch is always taken, however little time is left', async () => {
    const clock = new VirtualClock();
    const { queue } = tenLostRuns(clock, 'little-time');
    const worker = h.worker({ client: slowGitHub(clock), maxReceiveCount: MAX_RECEIVE_COUNT });
    const records = queue.receive(10);
    const res = await worker({ Records: records }, clock.invocation(1_000));
    expect(res.batchItemFailures).toHaveLength(9);
    expect(res.batchItemFailures.map((f) => f.itemIdentifier)).not.toContain(records[0]!.messageId);
  });
});
