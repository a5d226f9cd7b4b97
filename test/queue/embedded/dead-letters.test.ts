/** The embedded dead-letter queue: letters in the order they died, each with its reason, until a redrive drains them. */
import { describe, expect, it } from 'vitest';
import { DeadLetterQueue } from '../../../lib/queue/embedded/dead-letters.js';
import { sqsRecordOf } from '../../../lib/queue/embedded/message.js';
import { stored } from './stored.js';

const ARN = 'arn:aws:sqs:local:000000000000:q.fifo';

describe('DeadLetterQueue', () => {
  it('keeps the letters in the order they died, each with its message and reason', () => {
    const dead = new DeadLetterQueue();
    const second = stored({ messageId: 'second', order: 1 });
    const first = stored({ messageId: 'first', order: 2 });
    dead.add(first, sqsRecordOf(first, ARN), 'too many receives');
    dead.add(second, sqsRecordOf(second, ARN), 'poison');
    expect(dead.letters.map((l) => [l.record.messageId, l.reason])).toEqual([
      ['first', 'too many receives'],
      ['second', 'poison'],
    ]);
    expect(dead.get('second')).toBe(second);
    expect([...dead.ids()]).toEqual(['first', 'second']);
    expect(dead.reasonOf('second')).toBe('poison');
    expect(dead.reasonOf('unknown')).toBeUndefined();
  });

  it('a drain answers the messages in the order they died and leaves the queue empty', () => {
    const dead = new DeadLetterQueue();
    const a = stored({ messageId: 'a' });
    const b = stored({ messageId: 'b' });
    dead.add(b, sqsRecordOf(b, ARN), 'r');
    dead.add(a, sqsRecordOf(a, ARN), 'r');
    expect(dead.drain()).toEqual([b, a]);
    expect(dead.letters).toEqual([]);
    expect(dead.get('a')).toBeUndefined();
    expect(dead.drain()).toEqual([]);
  });
});
