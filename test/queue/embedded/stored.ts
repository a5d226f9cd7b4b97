import type { StoredMessage } from '../../../lib/queue/embedded/message.js';

/** A message as the embedded queue stores it: sent, never received, unless `over` says otherwise. */
export const stored = (over: Partial<StoredMessage> = {}): StoredMessage => ({
  messageId: 'm1',
  body: 'hello',
  groupId: 'g',
  deduplicationId: 'd1',
  order: 1,
  visibleAt: 0,
  receiveCount: 0,
  firstReceivedAt: undefined,
  receiptHandle: undefined,
  deferred: false,
  dedupUntil: 300_000,
  ...over,
});
