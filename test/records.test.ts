import { describe, expect, it } from 'vitest';
import { type AttemptRecord, withoutMessage } from '../lib/records.js';

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
