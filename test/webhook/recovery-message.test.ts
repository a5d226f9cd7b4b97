import { describe, expect, it } from 'vitest';
import type { RecoveryMessage } from '../../lib/model.js';
import { recoveryDeduplicationId, recoveryGroupId } from '../../lib/webhook/recovery-message.js';
import { parseQueueMessage } from '../../lib/webhook/run-message.js';

const request: RecoveryMessage = {
  v: 1,
  kind: 'recovery',
  installationId: 4242,
  repository: { id: 9, owner: 'acme', name: 'web' },
  runId: 70,
  jobId: 7,
  runnerName: 'runner-i-0abc12345',
  trigger: 'signal',
};

describe('recovery requests on the work queue', () => {
  it('parseQueueMessage tells a recovery request from a run message by its kind, and checks its fields', () => {
    expect(parseQueueMessage(JSON.stringify(request))).toEqual(request);
    expect(() => parseQueueMessage(JSON.stringify({ ...request, trigger: 'whim' }))).toThrow(
      'recovery.trigger: invalid',
    );
    expect(() => parseQueueMessage(JSON.stringify({ ...request, v: 2 }))).toThrow('message.v: expected 1');
  });

  it('a run’s requests share a group of their own, apart from the run’s completion', () => {
    expect(recoveryGroupId(request)).toBe('9#70#recovery');
  });

  it('one request per cause: the same cause gives the same deduplication id, another cause another', () => {
    const a = recoveryDeduplicationId(request, 'signal:e-1');
    expect(recoveryDeduplicationId(request, 'signal:e-1')).toBe(a);
    expect(recoveryDeduplicationId(request, 'ended:8')).not.toBe(a);
  });
});
