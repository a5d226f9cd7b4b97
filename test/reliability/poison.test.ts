import type { SQSEvent } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedFifoQueue, QueuePoller } from '../../lib/local/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { messageGroupId } from '../../lib/webhook/run-message.js';
import { transientBackoffSeconds } from '../../lib/worker/handler.js';
import { startHarness, type Harness } from '../support/harness.js';
import { lostRun } from './reconcile-kit.js';

const send = (q: EmbeddedFifoQueue, body: string, groupId = 'g', dedup = `${Math.random()}`) =>
  q.send({ body, groupId, deduplicationId: dedup });
const sendMessage = (q: EmbeddedFifoQueue, m: RunMessage) =>
  send(q, JSON.stringify(m), messageGroupId(m), m.deliveryId);

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
      expect(h.sim.reruns).toHaveLength(0);
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
    const q = new EmbeddedFifoQueue({ name: 'backoff.fifo', visibilityTimeoutMs: 20, maxReceiveCount: 5 });
    const deferred: number[] = [];
    const worker = h.worker({
      maxReceiveCount: 5,
      // One second of deferral is one millisecond here.
      defer: async (record, seconds) => {
        deferred.push(seconds);
        q.changeVisibility(record.receiptHandle, seconds);
      },
    });
    sendMessage(q, h.message(run.id));
    const poller = new QueuePoller(q, worker, { onError: () => undefined });
    for (let i = 0; i < 200 && q.deadLetters.length === 0; i++) {
      await poller.pollOnce();
      await sleep(5);
    }
    expect(deferred).toEqual([10, 20, 40, 80]);
    expect(q.deadLetters).toHaveLength(1);
    expect(h.metrics.get('TransientFault')).toBe(5);
    const last = h.log.named('message failed; it goes to the dead-letter queue');
    expect(last).toHaveLength(1);
    expect(last[0]).toMatchObject({ level: 'error', receive_count: 5, run_id: run.id });
    expect(String(last[0]?.reason)).toMatch(/503|Service Unavailable|fault/i);
    // Nothing was claimed for good: a redrive can decide the attempt.
    expect(await h.ledger.get(h.message(run.id).repository.id, run.id, 1)).toBeUndefined();
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
    const q = new EmbeddedFifoQueue({ name: 'redrive.fifo', visibilityTimeoutMs: 5_000, maxReceiveCount: 3 });
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
    await new QueuePoller(q, worker).drain(10_000);
    expect(decisions).toEqual(['retried', 'duplicate', 'duplicate', 'duplicate']);
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(1);
  });

  it('redriving a message that never got decided decides it once; a second redrive finds nothing', async () => {
    const run = lostRun(h);
    h.sim.injectFault({ method: 'GET', path: new RegExp(`/actions/runs/${run.id}/jobs`), status: 502, times: 10_000 });
    // Longer than a decision takes, so no receive overlaps the one before.
    const q = new EmbeddedFifoQueue({ name: 'redrive2.fifo', visibilityTimeoutMs: 1_000, maxReceiveCount: 2 });
    const decisions: string[] = [];
    const worker = h.worker({
      maxReceiveCount: 2,
      onOutcome: (_m, o) => decisions.push(o.decision),
      defer: async (record, seconds) => void q.changeVisibility(record.receiptHandle, seconds),
    });
    sendMessage(q, h.message(run.id));
    const poller = new QueuePoller(q, worker, { onError: () => undefined });
    for (let i = 0; i < 300 && q.deadLetters.length === 0; i++) {
      await poller.pollOnce();
      await sleep(10);
    }
    expect(q.deadLetters).toHaveLength(1);
    expect(decisions).toEqual([]);

    h.sim.clearFaults();
    expect(q.redrive()).toBe(1);
    await poller.drain(10_000);
    expect(q.redrive()).toBe(0);
    expect(decisions).toEqual(['retried']);
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(1);
  });
});
