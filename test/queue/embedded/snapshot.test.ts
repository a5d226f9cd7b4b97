/** What the journal writes of a message: its status read from its state, and nothing read from the clock. */
import { describe, expect, it } from 'vitest';
import { deletedSnapshot, snapshotOf } from '../../../lib/queue/embedded/snapshot.js';
import { stored } from './stored.js';

describe('snapshotOf', () => {
  it.each([
    ['queued', stored({ visibleAt: 10 })],
    ['received', stored({ receiptHandle: 'h', receiveCount: 1, firstReceivedAt: 5, visibleAt: 30_005 })],
    [
      'deferred',
      stored({ receiptHandle: 'h', receiveCount: 1, firstReceivedAt: 5, visibleAt: 90_000, deferred: true }),
    ],
  ] as const)('a %s message', (status, message) => {
    expect(snapshotOf(message)).toMatchObject({
      status,
      visibleAt: message.visibleAt,
      receiveCount: message.receiveCount,
    });
  });

  it('keeps every field a restore needs, and the first receive time once there is one', () => {
    const message = stored({ receiptHandle: 'h', receiveCount: 2, firstReceivedAt: 5, visibleAt: 30_005, order: 7 });
    expect(snapshotOf(message)).toEqual({
      messageId: 'm1',
      body: 'hello',
      groupId: 'g',
      deduplicationId: 'd1',
      order: 7,
      visibleAt: 30_005,
      receiveCount: 2,
      firstReceivedAt: 5,
      status: 'received',
      dedupUntil: 300_000,
    });
    expect(snapshotOf(stored())).not.toHaveProperty('firstReceivedAt');
  });

  it('a dead message is dead whatever its handle, with its reason when it has one', () => {
    const message = stored({ receiptHandle: 'h', receiveCount: 5 });
    expect(snapshotOf(message, { reason: 'maxReceiveCount 5 exceeded' })).toMatchObject({
      status: 'dead',
      deadReason: 'maxReceiveCount 5 exceeded',
    });
    expect(snapshotOf(message, { reason: undefined })).not.toHaveProperty('deadReason');
  });
});

describe('deletedSnapshot', () => {
  it('keeps the deduplication id and the end of its window, and no body', () => {
    const snap = deletedSnapshot('m9', { deduplicationId: 'd9', expiresAt: 123 });
    expect(snap).toMatchObject({ messageId: 'm9', status: 'deleted', deduplicationId: 'd9', dedupUntil: 123 });
    expect(snap.body).toBeUndefined();
  });
});
