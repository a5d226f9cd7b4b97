/** A queue's refusal, as both implementations throw it: an Error carrying SQS's code. */
import { describe, expect, it } from 'vitest';
import { QueueRefusedError } from '../../lib/queue/queue-refused.js';

describe('QueueRefusedError', () => {
  it('is an Error named for itself, with the code and the message given', () => {
    const err = new QueueRefusedError('ReceiptHandleIsInvalid', 'the handle is stale');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('QueueRefusedError');
    expect(err.code).toBe('ReceiptHandleIsInvalid');
    expect(err.message).toBe('the handle is stale');
    expect(String(err)).toBe('QueueRefusedError: the handle is stale');
  });
});
