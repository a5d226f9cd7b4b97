/**
 * A start on a data dir settles the claims earlier processes left before its worker polls, and
 * sends a message again only for an attempt the queue rebuilt from disk holds none for: a second
 * copy of a message the queue already holds would be decided twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverAfterRestart } from '../../lib/compose/recovery.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { messageGroupId } from '../../lib/webhook/run-message.js';
import { type Harness, startHarness } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';

const EARLIER = 'local-g1-earlier';
const NOW = 'local-g2-now';

describe('recoverAfterRestart', () => {
  let h: Harness;
  const runOf = (repo: string): RunMessage =>
    h.message(h.sim.addRun({ repo, jobs: [{ name: 'build', conclusion: 'failure' }] }).id);
  const recover = (queue: EmbeddedFifoQueue, log = new MemoryLog()) =>
    recoverAfterRestart({
      ledger: h.ledger,
      queuedBodies: () => queue.bodies(),
      queue: embeddedRunQueue(queue),
      client: h.client,
      graphqlUrl: h.settings.graphqlUrl,
      owner: NOW,
      log,
      metrics: new MemoryMetrics(),
      now: Date.now,
    });
  /** The queue as a restart rebuilt it: holding `held`, and a body that is no run message. */
  const queueHolding = async (held: readonly RunMessage[]): Promise<EmbeddedFifoQueue> => {
    const queue = new EmbeddedFifoQueue({ name: 'recover.fifo' });
    queue.send({ body: 'not a run message', groupId: 'other', deduplicationId: 'other-1' });
    for (const m of held) await embeddedRunQueue(queue).send(m, messageGroupId(m), m.deliveryId);
    return queue;
  };
  const runIds = (queue: EmbeddedFifoQueue): number[] =>
    queue
      .bodies()
      .filter((b) => b.startsWith('{'))
      .map((b) => (JSON.parse(b) as RunMessage).runId)
      .sort((a, b) => a - b);

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it('releases the claims of an earlier process, and sends again only the attempts the queue holds no message for', async () => {
    const [held, lost] = [runOf('acme/held'), runOf('acme/lost')];
    for (const m of [held, lost])
      expect(await h.ledger.attempts.claim(m, EARLIER, 60_000)).toMatchObject({ claimed: true });
    const queue = await queueHolding([held]);

    const summary = await recover(queue);
    expect(summary).toMatchObject({ released: 2, failed: 0 });
    expect(runIds(queue)).toEqual([held.runId, lost.runId].sort((a, b) => a - b));
    for (const m of [held, lost])
      expect(await h.ledger.attempts.get(m.repository.id, m.runId, m.runAttempt)).toBe(undefined);
  });

  it('keeps a waiting attempt waiting, sending its message only when the queue does not hold it', async () => {
    const [held, lost] = [runOf('acme/wait-held'), runOf('acme/wait-lost')];
    for (const m of [held, lost]) {
      await h.ledger.attempts.claim(m, EARLIER, 60_000);
      expect(await h.ledger.attempts.wait(m, EARLIER, Date.now() + 60_000, Date.now(), 120_000)).toBe(true);
    }
    const queue = await queueHolding([held]);

    expect(await recover(queue)).toMatchObject({ kept: 2, failed: 0 });
    expect(runIds(queue)).toEqual([held.runId, lost.runId].sort((a, b) => a - b));
    expect((await h.ledger.attempts.get(lost.repository.id, lost.runId, lost.runAttempt))?.state).toBe('waiting');
  });

  it("leaves this process's own claims alone", async () => {
    const mine = runOf('acme/mine');
    await h.ledger.attempts.claim(mine, NOW, 60_000);
    const queue = await queueHolding([]);
    await recover(queue);
    expect((await h.ledger.attempts.get(mine.repository.id, mine.runId, mine.runAttempt))?.owner).toBe(NOW);
    expect(runIds(queue)).not.toContain(mine.runId);
  });
});
