import { describe, expect, it } from 'vitest';
import { duplicateOutcome } from '../../lib/worker/result.js';

describe('a duplicate as the handler reports it', () => {
  it('keeps the reason, and counts no request and no verdict: a copy made no call of its own', () => {
    expect(duplicateOutcome({ kind: 'duplicate', reason: 'attempt 1 of run 9001 is claimed by worker-b' })).toEqual({
      decision: 'duplicate',
      reason: 'attempt 1 of run 9001 is claimed by worker-b',
      requests: 0,
      verdicts: [],
    });
  });
});
