/**
 * The embedded queue's deduplication window: an id is remembered for its window from the first
 * send whatever became of its message, and a deleted message is kept only as long as its id is.
 */
import { describe, expect, it } from 'vitest';
import { DeduplicationWindow } from '../../../lib/queue/embedded/dedup.js';
import type { MessageSnapshot } from '../../../lib/queue/embedded/snapshot.js';

const WINDOW = 300_000;

const snap = (over: Partial<MessageSnapshot>): MessageSnapshot => ({
  messageId: 'm',
  body: 'b',
  groupId: 'g',
  deduplicationId: 'd',
  order: 1,
  visibleAt: 0,
  receiveCount: 0,
  status: 'queued',
  dedupUntil: WINDOW,
  ...over,
});

describe('DeduplicationWindow', () => {
  it('answers the first message of an id while its window runs, and nothing from its end', () => {
    const window = new DeduplicationWindow(() => undefined);
    window.remember('d1', 'm1', WINDOW);
    expect(window.seen('d1', WINDOW - 1)).toBe('m1');
    expect(window.seen('d2', WINDOW - 1)).toBeUndefined();
    expect(window.seen('d1', WINDOW)).toBeUndefined();
    expect(window.size).toBe(0);
  });

  it('keeps a deleted message while its id is remembered, then tells that it is forgotten', () => {
    const forgotten: string[] = [];
    const window = new DeduplicationWindow((id) => forgotten.push(id));
    window.remember('d1', 'm1', WINDOW);
    window.remember('d2', 'm2', WINDOW + 10);
    window.rememberDeleted({ messageId: 'm1', deduplicationId: 'd1', dedupUntil: WINDOW });
    expect(window.deletedMessage('m1')).toEqual({ deduplicationId: 'd1', expiresAt: WINDOW });
    expect([...window.deletedIds()]).toEqual(['m1']);
    window.seen('anything', WINDOW);
    expect(forgotten).toEqual(['m1']);
    expect(window.deletedMessage('m1')).toBeUndefined();
    // m2 was never deleted: its id's end forgets nothing of a message.
    window.seen('anything', WINDOW + 10);
    expect(forgotten).toEqual(['m1']);
  });

  it('restores the ids still in their window and the deleted messages with them; answers the deleted ones past it', () => {
    const window = new DeduplicationWindow(() => undefined);
    const now = 1_000;
    const expired = window.restore(
      [
        snap({ messageId: 'live', deduplicationId: 'd-live', dedupUntil: now + 10, order: 2 }),
        snap({ messageId: 'gone', deduplicationId: 'd-gone', status: 'deleted', body: undefined, dedupUntil: now + 5 }),
        snap({ messageId: 'old', deduplicationId: 'd-old', status: 'deleted', body: undefined, dedupUntil: now }),
        snap({ messageId: 'stale', deduplicationId: 'd-stale', dedupUntil: now - 1 }),
      ],
      now,
    );
    expect(expired).toEqual(['old']);
    expect(window.seen('d-live', now)).toBe('live');
    expect(window.seen('d-gone', now)).toBe('gone');
    expect(window.seen('d-old', now)).toBeUndefined();
    expect(window.seen('d-stale', now)).toBeUndefined();
    expect(window.deletedMessage('gone')).toEqual({ deduplicationId: 'd-gone', expiresAt: now + 5 });
  });

  it('restores in expiry order, so the earliest-ending id is pruned first', () => {
    const forgotten: string[] = [];
    const window = new DeduplicationWindow((id) => forgotten.push(id));
    window.restore(
      [
        snap({ messageId: 'late', deduplicationId: 'd-late', status: 'deleted', body: undefined, dedupUntil: 300 }),
        snap({ messageId: 'early', deduplicationId: 'd-early', status: 'deleted', body: undefined, dedupUntil: 200 }),
      ],
      100,
    );
    window.seen('x', 250);
    expect(forgotten).toEqual(['early']);
    expect(window.seen('d-late', 250)).toBe('late');
  });
});
