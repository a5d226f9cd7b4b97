import type { SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QueuePoller } from '../../lib/queue/embedded/poller.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { messageGroupId } from '../../lib/webhook/run-message.js';
import { transientBackoffSeconds } from '../../lib/worker/record-handler.js';
import { startHarness, type Harness } from '../support/harness.js';
import { lostRun } from '../support/reconcile-kit.js';

const send = (q: EmbeddedFifoQueue, body: string, groupId = 'g', dedup = `${Math.random()}`) =>
  q.send({ body, groupId, deduplicationId: dedup });
const sendMessage = (q: EmbeddedFifoQueue, m: RunMessage) =>
  send(q, JSON.stringify(m), messageGroupId(m), m.deliveryId);

/** A queue whose clock moves only when the test says: timeouts and deferrals end on cue, never by a race. */
function queueOnClock(name: string, maxReceiveCount: number) {
  let now = 0;
  const queue = new EmbeddedFifoQueue({ name, maxReceiveCount, now: () => now });
  return { queue, advance: (ms: number) => void (now += ms) };
}
const HOUR = 3_600_000;

describe('poison messages: permanent faults are acknowledged with a reason and counted', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => h.close());

  it.each([
    ['a malformed body', () => 'this is not JSON', /malformed message: message body is not JSON/],
    [
      'a message whose run creation time is not a timestamp',
      (h: Harness) => JSON.stringify({ ...h.message(lostRun(h).id), createdAt: 'yesterday' }),
      /malformed message: message.createdAt: expected a timestamp/,
    ],
    [
      'a message of an unknown installation',
      (h: Harness) => JSON.stringify({ ...h.message(lostRun(h).id), installationId: 987_654 }),
      /unknown installation/,
    ],
    [
      'a run whose repository is gone',
      (h: Harness) => {
        const m = h.message(lostRun(h).id);
        return JSON.stringify({ ...m, runId: 99_999_999, repository: { ...m.repository, name: 'deleted' } });
      },
      /run or repository not found/,
    ],
  ])(
    '%s is acknowledged (no retry, no DLQ), logged with its reason, and counted as PoisonMessage',
    async (_n, body, reason) => {
      const q = new EmbeddedFifoQueue({ name: 'poison.fifo' });
      send(q, body(h));
      const res = await h.worker()({ Records: q.receive(10) } as SQSEvent);
      expect(res.batchItemFailures).toEqual([]);
      expect(h.metrics.get('PoisonMessage')).toBe(1);
      const line = h.log.named('message dropped: permanent fault')[0];
      expect(line?.level).toBe('error');
      expect(String(line?.reason)).toMatch(reason);
      expect(h.sim.rerunRequests).toHaveLength(0);
    },
  );
});

describe('transient faults: exponential backoff, then the DLQ with the reason logged', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => h.close());

  it.each([
    [1, 10],
    [2, 20],
    [3, 40],
    [4, 80],
    [5, 160],
    [7, 640],
    [8, 900],
    [50, 900],
  ])('after receive %i the message waits %i s', (receive, seconds) => {
    expect(transientBackoffSeconds(receive)).toBe(seconds);
  });

  it('a run GitHub keeps failing on is deferred 10, 20, 40, 80 s, then dead-lettered after maxReceiveCount with its reason', async () => {
    const run = lostRun(h);
    h.sim.injectFault({ method: 'GET', path: new RegExp(`/actions/runs/${run.id}/jobs`), status: 503, times: 10_000 });
    const { queue: q, advance } = queueOnClock('backoff.fifo', 5);
    const deferred: number[] = [];
    const worker = h.worker({
      maxReceiveCount: 5,
      defer: async (record, seconds) => {
        deferred.push(seconds);
        q.changeVisibility(record.receiptHandle, seconds * 1000);
      },
    });
    sendMessage(q, h.message(run.id));
    const poller = new QueuePoller(embeddedQueue(q), worker, { onError: () => undefined });
    for (let receive = 1; receive <= 6; receive++) {
      const handed = await poller.pollOnce();
      if (q.deadLetters.length > 0) {
        // The receive after the fifth moves the message instead of handing it over.
        expect(handed).toBe(0);
        break;
      }
      expect(handed).toBe(1);
      const wait = deferred[receive - 1];
      if (wait === undefined) {
        // The last receive is not deferred: the message waits out its visibility timeout.
        advance(HOUR);
        continue;
      }
      // Hidden for exactly the deferral.
      advance(wait * 1000 - 1);
      expect(q.stats()).toMatchObject({ visible: 0, inFlight: 1 });
      advance(1);
      expect(q.stats().visible).toBe(1);
    }
    expect(deferred).toEqual([10, 20, 40, 80]);
    expect(q.deadLetters).toHaveLength(1);
    expect(h.metrics.get('TransientFault')).toBe(5);
    const last = h.log.named('message failed; it goes to the dead-letter queue');
    expect(last).toHaveLength(1);
    expect(last[0]).toMatchObject({ level: 'error', receive_count: 5, run_id: run.id });
    expect(String(last[0]?.reason)).toMatch(/503|Service Unavailable|fault/i);
    // Nothing was claimed for good: a redrive can decide the attempt.
    expect(await h.ledger.attempts.get(h.message(run.id).repository.id, run.id, 1)).toBeUndefined();
  });
});

describe('a DLQ redrive is safe at any time', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => h.close());

  it('redriving an already-decided message produces no second re-run', async () => {
    const run = lostRun(h);
    const { queue: q } = queueOnClock('redrive.fifo', 3);
    const decisions: string[] = [];
    const worker = h.worker({ onOutcome: (_m, o) => decisions.push(o.decision) });
    sendMessage(q, h.message(run.id));
    // A worker that decides but never acknowledges: each receive ends with the message visible again.
    for (let i = 0; i < 10 && q.deadLetters.length === 0; i++) {
      const records = q.receive(10);
      if (records.length > 0) await worker({ Records: records } as SQSEvent);
      for (const r of records) q.changeVisibility(r.receiptHandle, 0);
    }
    expect(q.deadLetters).toHaveLength(1);
    expect(decisions).toEqual(['retried', 'duplicate', 'duplicate']);

    expect(q.redrive()).toBe(1);
    await new QueuePoller(embeddedQueue(q), worker).drain(10_000);
    expect(decisions).toEqual(['retried', 'duplicate', 'duplicate', 'duplicate']);
    expect(h.sim.rerunTally(run.id).received).toBe(1);
  });

  it('redriving a message that never got decided decides it once; a second redrive finds nothing', async () => {
    const run = lostRun(h);
    h.sim.injectFault({ method: 'GET', path: new RegExp(`/actions/runs/${run.id}/jobs`), status: 502, times: 10_000 });
    const { queue: q, advance } = queueOnClock('redrive2.fifo', 2);
    const decisions: string[] = [];
    const worker = h.worker({
      maxReceiveCount: 2,
      onOutcome: (_m, o) => decisions.push(o.decision),
      defer: async (record, seconds) => void q.changeVisibility(record.receiptHandle, seconds * 1000),
    });
    sendMessage(q, h.message(run.id));
    const poller = new QueuePoller(embeddedQueue(q), worker, { onError: () => undefined });
    // One receive at a time, each waited out before the next: no two receives overlap.
    for (let i = 0; i < 3 && q.deadLetters.length === 0; i++) {
      await poller.pollOnce();
      advance(HOUR);
    }
    expect(q.deadLetters).toHaveLength(1);
    expect(decisions).toEqual([]);

    h.sim.clearFaults();
    expect(q.redrive()).toBe(1);
    await poller.drain(10_000);
    expect(q.redrive()).toBe(0);
    expect(decisions).toEqual(['retried']);
    expect(h.sim.rerunTally(run.id).received).toBe(1);
  });
});
