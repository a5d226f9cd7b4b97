/** Where the embedded queue keeps its live messages: per group in send order, by id, by handle. */
import { describe, expect, it } from 'vitest';
import { MessageGroups } from '../../../lib/queue/embedded/groups.js';
import { stored } from './stored.js';

const ids = (groups: { messageId: string }[][]) => groups.map((g) => g.map((m) => m.messageId));

describe('MessageGroups', () => {
  it('keeps each group in send order, the group whose first message is oldest first', () => {
    const live = new MessageGroups();
    live.add(stored({ messageId: 'b1', groupId: 'b', order: 2 }));
    live.add(stored({ messageId: 'a1', groupId: 'a', order: 1 }));
    live.add(stored({ messageId: 'b2', groupId: 'b', order: 3 }));
    expect(ids(live.oldestFirst())).toEqual([['a1'], ['b1', 'b2']]);
    expect(live.size).toBe(3);
    expect([...live.ids()].sort()).toEqual(['a1', 'b1', 'b2']);
  });

  it('a removed message leaves its group; an emptied group is gone', () => {
    const live = new MessageGroups();
    const a1 = stored({ messageId: 'a1', groupId: 'a', order: 1 });
    const b1 = stored({ messageId: 'b1', groupId: 'b', order: 2 });
    live.add(a1);
    live.add(b1);
    live.remove(a1);
    expect(ids(live.oldestFirst())).toEqual([['b1']]);
    expect(live.get('a1')).toBeUndefined();
    expect(live.size).toBe(1);
  });

  it('finds a message by the handle it was last given; an older handle goes stale', () => {
    const live = new MessageGroups();
    const m = stored();
    live.add(m);
    live.hand(m, 'h1');
    m.receiptHandle = 'h1';
    expect(live.held('h1')).toBe(m);
    live.hand(m, 'h2');
    m.receiptHandle = 'h2';
    expect(live.held('h1')).toBeUndefined();
    expect(live.held('h2')).toBe(m);
    live.remove(m);
    expect(live.held('h2')).toBeUndefined();
  });

  it('counts what is hidden now, and says when the first hidden message shows again', () => {
    const live = new MessageGroups();
    live.add(stored({ messageId: 'visible', visibleAt: 0 }));
    live.add(stored({ messageId: 'held', receiptHandle: 'h', visibleAt: 500 }));
    live.add(stored({ messageId: 'deferred', receiptHandle: 'h2', visibleAt: 300, deferred: true }));
    expect(live.inFlight(100)).toBe(2);
    expect(live.nextVisibleAt(100)).toBe(300);
    expect(live.inFlight(400)).toBe(1);
    expect(live.nextVisibleAt(400)).toBe(500);
    expect(live.nextVisibleAt(500)).toBeUndefined();
  });
});
