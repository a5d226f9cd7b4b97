import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { PermanentError, RateLimitedError, ShapeError, TransientError } from '../../lib/errors.js';
import type { WorkerContext } from '../../lib/worker/context.js';
import {
  handleRecord,
  permanentFault,
  receiveCount,
  type RecordParts,
  transientBackoffSeconds,
} from '../../lib/worker/record-handler.js';
import { fakeWorld } from '../support/fakes/context.js';
import { runMessage } from '../support/fixtures.js';

/** A record as SQS delivers it, received `received` times, first received `firstMs`. */
function record(body: string, received: number, firstMs: number): SQSRecord {
  return {
    messageId: `m-${received}`,
    receiptHandle: 'h',
    body,
    attributes: {
      ApproximateReceiveCount: String(received),
      ApproximateFirstReceiveTimestamp: String(firstMs),
      SentTimestamp: String(firstMs),
      SenderId: 'worker',
      MessageGroupId: 'g',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:runs.fifo',
    awsRegion: 'us-east-1',
  } as SQSRecord;
}

/** One record's parts on in-memory stores: GitHub answers with `fault`, and every hide is noted. */
function parts(fault: Error, maxReceiveCount = 5) {
  const w = fakeWorld();
  const ctx: WorkerContext = {
    ...w.ctx,
    github: {
      ...w.ctx.github,
      client: () => {
        throw fault;
      },
    },
  };
  const hidden: [string, number][] = [];
  const p: RecordParts = {
    deps: ctx,
    isLastReceive: (n) => n >= maxReceiveCount,
    hide: async (r, seconds) => void hidden.push([r.messageId, seconds]),
  };
  return { w, p, hidden };
}

describe('one record of the batch', () => {
  it('a transient fault backs off 10 s after the first receive, doubling, at most 15 minutes', () => {
    expect([1, 2, 3, 4, 7, 8, 20].map(transientBackoffSeconds)).toEqual([10, 20, 40, 80, 640, 900, 900]);
  });

  it('only a malformed message or a permanent error is a permanent fault', () => {
    expect(permanentFault(new ShapeError('runId: expected a number'))).toBe(
      'malformed message: runId: expected a number',
    );
    expect(permanentFault(new PermanentError('installation 7 is not known'))).toBe('installation 7 is not known');
    expect(permanentFault(new TransientError('502'))).toBeUndefined();
    expect(permanentFault(new Error('socket hang up'))).toBeUndefined();
  });

  it('a record without a receive count is on its first receive', () => {
    const r = record('{}', 3, 0);
    expect(receiveCount(r)).toBe(3);
    expect(receiveCount({ ...r, attributes: { ...r.attributes, ApproximateReceiveCount: undefined } } as never)).toBe(
      1,
    );
  });

  it('a malformed body is acknowledged (no throw), counted as poison, never hidden', async () => {
    const { w, p, hidden } = parts(new Error('unused'));
    const waiting = new Set<string>();
    await expect(handleRecord(record('{"not":"a run"}', 1, w.clock.now()), waiting, p)).resolves.toBeUndefined();
    expect(w.metrics.get('PoisonMessage')).toBe(1);
    expect(hidden).toEqual([]);
    expect(waiting.size).toBe(0);
  });

  it('a rate limit hides the record for the limit’s own wait, not the exponential backoff, and fails it', async () => {
    const limited = new RateLimitedError(90_000);
    const { w, p, hidden } = parts(limited);
    const r = record(JSON.stringify(runMessage()), 2, w.clock.now());
    await expect(handleRecord(r, new Set(), p)).rejects.toBe(limited);
    expect(hidden).toEqual([[r.messageId, 90]]);
    expect(w.metrics.get('RateLimited')).toBe(1);
    expect(w.log.named('message failed; it will be retried')).toEqual([
      expect.objectContaining({ retry_after_seconds: 90, retry_in_seconds: 90, receive_count: 2 }),
    ]);
  });

  it('a backoff is cut to what is left of the 12-hour visibility window', async () => {
    const { w, p, hidden } = parts(new TransientError('502'));
    // First received 12 hours less 61 s ago: one second of the window is left past the margin.
    const r = record(JSON.stringify(runMessage()), 4, w.clock.now() - (12 * 3600 - 61) * 1000);
    await expect(handleRecord(r, new Set(), p)).rejects.toThrow('502');
    expect(hidden).toEqual([[r.messageId, 1]]);
  });

  it('on the last receive a fault is not hidden: the redrive takes it to the dead-letter queue', async () => {
    const { w, p, hidden } = parts(new TransientError('502'), 3);
    await expect(handleRecord(record(JSON.stringify(runMessage()), 3, w.clock.now()), new Set(), p)).rejects.toThrow();
    expect(hidden).toEqual([]);
    expect(w.log.named('message failed; it goes to the dead-letter queue')).toEqual([
      expect.objectContaining({ level: 'error', receive_count: 3 }),
    ]);
  });
});
