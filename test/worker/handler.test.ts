import type { SQSRecord } from 'aws-lambda';
import { noDeliveryLog } from '../../lib/decide/delivery-gap.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TIMEOUTS } from '../../infra/reprise.js';
import { DECISION_NEED_MS, GITHUB_REQUEST_TIMEOUT_MS } from '../../lib/config/github-settings.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { messageGroupId } from '../../lib/webhook/run-message.js';
import { createWorkerHandler, fifoGroups } from '../../lib/worker/handler.js';
import { transientBackoffSeconds } from '../../lib/worker/record-handler.js';
import { runMessage } from '../support/fixtures.js';
import { errorLine, TEXT } from '../support/evidence.js';
import { type Harness, startHarness } from '../support/harness.js';
import { fakeWorld } from '../support/fakes/context.js';
import { slowGitHub } from '../support/slow-github.js';
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
      client: slowGitHub(h, clock),
      // The virtual clock is the installation's requests': the App's delivery-log read (real HTTP,
      // beside the listing) would move it at a moment the machine's load picks.
      deliveryLog: noDeliveryLog,
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
    const worker = h.worker({
      client: slowGitHub(h, clock),
      deliveryLog: noDeliveryLog,
      maxReceiveCount: MAX_RECEIVE_COUNT,
    });
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
      // The installation's requests: the App's read of its delivery log beside each job listing is
      // another client (its JWT, its own limit) and is counted in worker/staleness.test.ts.
      const worker = h.worker({ maxReceiveCount: MAX_RECEIVE_COUNT, deliveryLog: noDeliveryLog });
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
    const worker = h.worker({ client: slowGitHub(h, clock), maxReceiveCount: 1 });
    const res = await worker({ Records: queue.receive(10) }, clock.invocation(1_000));
    expect(res.batchItemFailures).toHaveLength(9);
    expect(h.log.named('message handed back on its last receive; it goes to the dead-letter queue')).toHaveLength(9);
  });

  it('the first message of a batch is always taken, however little time is left', async () => {
    const clock = new VirtualClock();
    const { queue } = tenLostRuns(clock, 'little-time');
    const worker = h.worker({
      client: slowGitHub(h, clock),
      deliveryLog: noDeliveryLog,
      maxReceiveCount: MAX_RECEIVE_COUNT,
    });
    const records = queue.receive(10);
    const res = await worker({ Records: records }, clock.invocation(1_000));
    expect(res.batchItemFailures).toHaveLength(9);
    expect(res.batchItemFailures.map((f) => f.itemIdentifier)).not.toContain(records[0]!.messageId);
  });
});

describe('the handler’s own rules, on in-memory stores', () => {
  /** Real SQS record shapes, from the embedded FIFO queue. */
  function records(bodies: readonly { body: string; group: string }[]): SQSRecord[] {
    const q = new EmbeddedFifoQueue({ name: 'handler-unit.fifo' });
    bodies.forEach((b, i) => q.send({ body: b.body, groupId: b.group, deduplicationId: `dedup-${i}` }));
    const out: SQSRecord[] = [];
    for (let r = q.receive(10); r.length > 0; r = q.receive(10)) out.push(...r);
    return out;
  }
  const receivedTimes = (r: SQSRecord, n: number): SQSRecord => ({
    ...r,
    attributes: { ...r.attributes, ApproximateReceiveCount: String(n) },
  });

  /**
   * A worker on in-memory stores whose repository configuration cannot be read: every decision
   * faults, transiently, once its claim is taken. GitHub is the simulator's.
   */
  function faultingWorker(defer: (r: SQSRecord, s: number) => Promise<void>, maxReceiveCount = 5) {
    const w = fakeWorld();
    const ctx = { ...w.ctx, github: { client: h.client, graphqlUrl: h.sim.graphqlUrl, deliveryLog: noDeliveryLog } };
    return { w, handle: createWorkerHandler({ ...ctx, defer, maxReceiveCount }) };
  }

  it('groups a batch by message group, each in its order of receipt; a record without a group is a group of its own', () => {
    const rs = records([
      { body: 'a1', group: 'a' },
      { body: 'b1', group: 'b' },
      { body: 'a2', group: 'a' },
    ]);
    const loose = { ...rs[0]!, messageId: 'loose', attributes: { ...rs[0]!.attributes, MessageGroupId: undefined } };
    const groups = fifoGroups([...rs, loose as unknown as SQSRecord]).map((g) => g.map((r) => r.body));
    expect(groups).toEqual([['a1', 'a2'], ['b1'], ['a1']]);
  });

  it('a malformed message is acknowledged with its reason, counted as poison, never retried', async () => {
    const deferred: number[] = [];
    const { w, handle } = faultingWorker(async (_r, s) => void deferred.push(s));
    const res = await handle({ Records: records([{ body: '{"not":"a run"}', group: 'g' }]) });
    expect(res.batchItemFailures).toEqual([]);
    expect(w.log.named('message dropped: permanent fault')).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/^malformed message: /) }),
    ]);
    expect(w.metrics.get('PoisonMessage')).toBe(1);
    expect(deferred).toEqual([]);
  });

  it('a transient fault fails the record, gives its claim back and hides it for the backoff of its receive', async () => {
    const msg = runMessage();
    const deferred: [string, number][] = [];
    const { w, handle } = faultingWorker(async (r, s) => void deferred.push([r.messageId, s]));
    const [record] = records([{ body: JSON.stringify(msg), group: 'g' }]);
    const res = await handle({ Records: [receivedTimes(record!, 2)] });
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: record!.messageId }]);
    expect(deferred).toEqual([[record!.messageId, transientBackoffSeconds(2)]]);
    expect(w.log.named('message failed; it will be retried')).toEqual([
      expect.objectContaining({ level: 'warn', receive_count: 2, retry_in_seconds: 20 }),
    ]);
    expect(w.metrics.get('TransientFault')).toBe(1);
    // Claimed, then given back: a retry decides it afresh.
    expect(w.attempts.count('claim', true)).toBe(1);
    expect(w.attempts.count('release', true)).toBe(1);
    expect(await w.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
  });

  it('on its last receive a failed record is not hidden again: logged as going to the dead-letter queue', async () => {
    const deferred: number[] = [];
    const { w, handle } = faultingWorker(async (_r, s) => void deferred.push(s), 3);
    const [record] = records([{ body: JSON.stringify(runMessage()), group: 'g' }]);
    const res = await handle({ Records: [receivedTimes(record!, 3)] });
    expect(res.batchItemFailures).toHaveLength(1);
    expect(deferred).toEqual([]);
    expect(w.log.named('message failed; it goes to the dead-letter queue')).toEqual([
      expect.objectContaining({ level: 'error', receive_count: 3 }),
    ]);
  });

  it('a visibility change the queue refuses is logged and counted, never silent', async () => {
    const { w, handle } = faultingWorker(async () => {
      throw new Error('past the 12-hour ceiling');
    });
    const [record] = records([{ body: JSON.stringify(runMessage()), group: 'g' }]);
    const res = await handle({ Records: [record!] });
    expect(res.batchItemFailures).toHaveLength(1);
    expect(w.log.named('visibility change refused')).toEqual([
      expect.objectContaining({ error: 'past the 12-hour ceiling', message_id: record!.messageId }),
    ]);
    expect(w.metrics.get('DeferRefused')).toBe(1);
  });

  it('a record behind a failed one of its group is handed back visible at once, never started', async () => {
    const deferred: [string, number][] = [];
    const { handle } = faultingWorker(async (r, s) => void deferred.push([r.messageId, s]));
    const [first, second] = records([
      { body: JSON.stringify(runMessage({ runId: 1 })), group: 'g' },
      { body: JSON.stringify(runMessage({ runId: 2 })), group: 'g' },
    ]);
    const res = await handle({ Records: [first!, second!] });
    expect(res.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(
      [first!.messageId, second!.messageId].sort(),
    );
    expect(deferred).toEqual([
      [first!.messageId, transientBackoffSeconds(1)],
      [second!.messageId, 0],
    ]);
  });
});
