/**
 * Runs a set of embedded-queue cases twice: in memory, and journaled to dynalite as `--data-dir`
 * runs it, where after every case the journal must hold exactly what the queue holds (every
 * message, receive count, deferral, dead letter and remembered deduplication id).
 */
import type { SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { type EmbeddedDynamo, startDynamo } from '../../../lib/local/dynamo.js';
import { EmbeddedFifoQueue, type QueueOptions } from '../../../lib/queue/embedded/fifo-queue.js';
import { DynamoQueueJournal } from '../../../lib/queue/embedded/journal.js';
import type { MessageSnapshot } from '../../../lib/queue/embedded/snapshot.js';

export const NAME = 'reprise-runs.fifo';
const JOURNAL_TABLE = 'queue-journal';

/** Set while the journaled half runs: each queue a case makes gets its own journal. */
let journaled:
  { dynamo: EmbeddedDynamo; made: { queue: EmbeddedFifoQueue; journal: DynamoQueueJournal }[] } | undefined;
let queues = 0;

/** A queue as the running half makes it: with a journal of its own when journaled. */
export function newQueue(opts: QueueOptions): EmbeddedFifoQueue {
  if (!journaled) return new EmbeddedFifoQueue(opts);
  const journal = DynamoQueueJournal.onTable(journaled.dynamo.client, JOURNAL_TABLE, `${NAME}#${++queues}`);
  const queue = new EmbeddedFifoQueue({ ...opts, journal });
  journaled.made.push({ queue, journal });
  return queue;
}

const byId = (snaps: MessageSnapshot[]) => [...snaps].sort((a, b) => a.messageId.localeCompare(b.messageId));

/** A queue on a hand-moved clock (30 s visibility, 5 receives unless `opts` says otherwise). */
export function setup(opts: Partial<QueueOptions> = {}) {
  const clock = { t: 1_700_000_000_000 };
  const queue = newQueue({
    name: NAME,
    visibilityTimeoutMs: 30_000,
    maxReceiveCount: 5,
    now: () => clock.t,
    ...opts,
  });
  let n = 0;
  const send = (groupId: string, body = `${groupId}-${++n}`) =>
    queue.send({ body, groupId, deduplicationId: `d-${body}` });
  const advance = (ms: number) => {
    clock.t += ms;
  };
  return { queue, clock, send, advance };
}

export const bodies = (records: SQSRecord[]) => records.map((r) => r.body);

/** `cases` once in memory, once journaled to dynalite with the journal checked after each case. */
export function bothWays(cases: () => void): void {
  describe('in memory', () => cases());

  describe('journaled to dynalite (--data-dir)', () => {
    beforeAll(async () => {
      journaled = { dynamo: await startDynamo({ table: JOURNAL_TABLE }), made: [] };
    });
    afterEach(async () => {
      const made = journaled!.made.splice(0);
      for (const { queue, journal } of made) {
        const mine = queue.snapshots();
        await queue.persisted(mine.map((m) => m.messageId));
        await journal.settle();
        expect(byId(await journal.load())).toEqual(byId(queue.snapshots()));
      }
    });
    afterAll(async () => {
      await journaled?.dynamo.close();
      journaled = undefined;
    });
    cases();
  });
}
