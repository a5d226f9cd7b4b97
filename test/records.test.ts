import { describe, expect, it } from 'vitest';
import { type AttemptRecord, attemptKey, withoutMessage } from '../lib/records.js';

describe('records: a decision as listings show it', () => {
  it('drops the stored message and keeps every other field as it was', () => {
    const record = {
      state: 'decided',
      owner: 'w',
      claimedAt: 1,
      leaseUntil: 2,
      repository: 'acme/web',
      runId: 7,
      runAttempt: 1,
      decision: 'retried',
      reason: 'the runner was lost',
      message: { runId: 7 },
    } as unknown as AttemptRecord;
    const listed = withoutMessage(record);
    expect(listed).not.toHaveProperty('message');
    const { message: _stored, ...rest } = record as AttemptRecord & { message: unknown };
    expect(listed).toEqual(rest);
    expect(record).toHaveProperty('message');
  });
});

describe('records: the attempt key', () => {
  it('is `<repository id>#<run id>#<run attempt>`, one key per attempt of a run', () => {
    expect(attemptKey(42, 1001, 2)).toBe('42#1001#2');
    expect(attemptKey(42, 1001, 1)).not.toBe(attemptKey(42, 1001, 2));
    // The repository id leads: the retry budget reads a repository's share from the key's first part.
    expect(attemptKey(42, 1001, 2).split('#')[0]).toBe('42');
  });
});
