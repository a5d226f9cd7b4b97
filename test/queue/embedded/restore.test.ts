/**
 * Rebuilding the embedded queue's stores from a journal: a held message is visible at once, its
 * receive counted; a deferral stays hidden until it ends; dead letters stay dead; deleted
 * messages past their window are forgotten.
 */
import { describe, expect, it } from 'vitest';
import { DeadLetterQueue } from '../../../lib/queue/embedded/dead-letters.js';
import { DeduplicationWindow } from '../../../lib/queue/embedded/dedup.js';
import { MessageGroups } from '../../../lib/queue/embedded/groups.js';
import { RESTORED_HANDLE, sqsRecordOf } from '../../../lib/queue/embedded/message.js';
import { restoreInto } from '../../../lib/queue/embedded/restore.js';
import type { MessageSnapshot } from '../../../lib/queue/embedded/snapshot.js';

const NOW = 1_000_000;

const snap = (messageId: string, over: Partial<MessageSnapshot> = {}): MessageSnapshot => ({
  messageId,
  body: `body-${messageId}`,
  groupId: 'g',
  deduplicationId: `d-${messageId}`,
  order: 1,
  visibleAt: NOW - 1,
  receiveCount: 0,
  status: 'queued',
  dedupUntil: NOW + 300_000,
  ...over,
});

function target() {
  const changed: string[] = [];
  const stores = {
    live: new MessageGroups(),
    dead: new DeadLetterQueue(),
    dedup: new DeduplicationWindow(() => undefined),
    record: (m: Parameters<typeof sqsRecordOf>[0]) => sqsRecordOf(m, 'arn'),
    changed: (id: string) => void changed.push(id),
  };
  return { stores, changed };
}

describe('restoreInto', () => {
  it('a message a consumer held is visible at once with its receives, and is written back as queued', () => {
    const { stores, changed } = target();
    const out = restoreInto(
      stores,
      [snap('held', { status: 'received', receiveCount: 2, firstReceivedAt: 5, visibleAt: NOW + 30_000 })],
      NOW,
    );
    const m = stores.live.get('held')!;
    expect(m).toMatchObject({ visibleAt: NOW, receiveCount: 2, firstReceivedAt: 5, receiptHandle: undefined });
    expect(out).toMatchObject({ messages: 1, released: 1, deferred: 0, deadLetters: 0 });
    expect(changed).toEqual(['held']);
  });

  it('a deferral still running stays hidden under a handle nobody holds; one that ended is visible', () => {
    const { stores } = target();
    const out = restoreInto(
      stores,
      [
        snap('waits', { status: 'deferred', receiveCount: 1, visibleAt: NOW + 60_000 }),
        snap('ended', { status: 'deferred', receiveCount: 1, visibleAt: NOW - 1, order: 2 }),
      ],
      NOW,
    );
    expect(stores.live.get('waits')).toMatchObject({ receiptHandle: RESTORED_HANDLE, deferred: true });
    expect(stores.live.get('ended')).toMatchObject({ receiptHandle: undefined, deferred: false });
    expect(stores.live.held(RESTORED_HANDLE)).toBeUndefined();
    expect(out).toMatchObject({ messages: 2, deferred: 1, released: 0 });
  });

  it('dead letters stay dead with their reason; deleted ones only keep their deduplication id', () => {
    const { stores } = target();
    const out = restoreInto(
      stores,
      [
        snap('dead', { status: 'dead', receiveCount: 5, deadReason: 'too many' }),
        snap('dead-no-reason', { status: 'dead', order: 2 }),
        snap('gone', { status: 'deleted', body: undefined, order: 3 }),
      ],
      NOW,
    );
    expect(stores.dead.letters.map((l) => [l.record.messageId, l.reason])).toEqual([
      ['dead', 'too many'],
      ['dead-no-reason', 'dead-lettered'],
    ]);
    expect(stores.live.size).toBe(0);
    expect(stores.dedup.seen('d-gone', NOW)).toBe('gone');
    expect(out).toMatchObject({ messages: 0, deadLetters: 2 });
  });

  it('rebuilds groups in send order and answers the last order seen, deleted messages included', () => {
    const { stores } = target();
    const out = restoreInto(
      stores,
      [
        snap('second', { order: 5 }),
        snap('first', { order: 2 }),
        snap('gone', { status: 'deleted', body: undefined, order: 9 }),
      ],
      NOW,
    );
    expect(stores.live.oldestFirst().map((g) => g.map((m) => m.messageId))).toEqual([['first', 'second']]);
    expect(out.lastOrder).toBe(9);
  });

  it('a deleted message past its window is forgotten, and the journal told', () => {
    const { stores, changed } = target();
    restoreInto(stores, [snap('old', { status: 'deleted', body: undefined, dedupUntil: NOW })], NOW);
    expect(changed).toEqual(['old']);
    expect(stores.dedup.deletedMessage('old')).toBeUndefined();
  });
});
