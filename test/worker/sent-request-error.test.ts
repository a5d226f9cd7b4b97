import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../lib/errors.js';
import { SentRequestError } from '../../lib/worker/sent-request-error.js';

describe('an error once a request had been sent to GitHub', () => {
  it('carries the fault as its cause, says it as its own message, and says whether the call is in flight', () => {
    const cause = new Error('socket hang up');
    const fault = new SentRequestError(cause, true);
    expect(fault).toBeInstanceOf(Error);
    expect(fault).toMatchObject({ name: 'SentRequestError', message: 'socket hang up', inFlight: true });
    expect(fault.cause).toBe(cause);
  });

  it('a rate limit stays the cause, so the caller can tell a call turned away from one GitHub may have acted on', () => {
    const fault = new SentRequestError(new RateLimitedError(60_000), false);
    expect(fault.cause).toBeInstanceOf(RateLimitedError);
    expect(fault.inFlight).toBe(false);
  });

  it('a thrown value that is not an Error is said as text', () => {
    expect(new SentRequestError('connection reset', false).message).toBe('connection reset');
  });
});
