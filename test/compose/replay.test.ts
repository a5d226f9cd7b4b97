/**
 * A replay as the operator asks for it: the ledger's guard first, then the message in its run's
 * group under its delivery id, on a real ledger in the embedded DynamoDB and the embedded queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeReplay, type Replay } from '../../lib/compose/replay.js';
import type { RunMessage } from '../../lib/model.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import { messageGroupId } from '../../lib/webhook/run-message.js';
import { type Harness, startHarness } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';

describe('composeReplay', () => {
  let h: Harness;
  let queue: EmbeddedFifoQueue;
  let replay: Replay;
  const log = new MemoryLog();
  const runOf = (): RunMessage =>
    h.message(h.sim.addRun({ repo: 'acme/web', jobs: [{ name: 'test', conclusion: 'failure' }] }).id);
  const sent = () => queue.receive(10);

  beforeAll(async () => {
    h = await startHarness();
    queue = new EmbeddedFifoQueue({ name: 'replay.fifo' });
    replay = composeReplay({ attempts: h.ledger.attempts, queue: embeddedRunQueue(queue), log });
  });
  afterAll(async () => h?.close());

  it('an attempt the ledger has never seen is sent in its run group, under its delivery id', async () => {
    const message = runOf();
    expect(await replay(message, false)).toEqual({ kind: 'enqueue' });
    const [record, ...rest] = sent();
    expect(rest).toEqual([]);
    expect(JSON.parse(record!.body)).toEqual(message);
    expect(record!.attributes.MessageGroupId).toBe(messageGroupId(message));
    expect(record!.attributes.MessageDeduplicationId).toBe(message.deliveryId);
    expect(log.lines.some((l) => l.message === 'replay enqueued' && l.run_id === message.runId)).toBe(true);
  });

  it('a decided attempt is reported and nothing is sent; with force, one that did not re-run is given back and sent', async () => {
    const message = runOf();
    await h.ledger.attempts.claim(message, 'w', 60_000);
    await h.ledger.attempts.finalise(message, 'w', 'genuine_failure', 'job "test" failed for a real reason');

    expect(await replay(message, false)).toMatchObject({ kind: 'already_decided', decision: 'genuine_failure' });
    expect(sent()).toEqual([]);

    expect(await replay(message, true)).toEqual({ kind: 'enqueue', released: 'genuine_failure' });
    expect(sent().map((r) => (JSON.parse(r.body) as RunMessage).runId)).toEqual([message.runId]);
  });

  it('an attempt that was re-run is refused even with force: deciding it again could re-run it twice', async () => {
    const message = runOf();
    await h.ledger.attempts.claim(message, 'w', 60_000);
    await h.ledger.attempts.finalise(message, 'w', 'retried', 'the runner was lost');
    expect(await replay(message, true)).toMatchObject({ kind: 'refused' });
    expect(sent()).toEqual([]);
  });
});
