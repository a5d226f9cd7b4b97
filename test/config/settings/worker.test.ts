import { describe, expect, it } from 'vitest';
import { WORKER_SETTINGS } from '../../../lib/config/settings/worker.js';
import { fromText } from './rows.js';

describe('the work queue and worker settings', () => {
  it('holds the batch to the FIFO limit of 10 and the receives to at least 5', () => {
    expect(fromText(WORKER_SETTINGS.workerBatchSize, '10')).toBe(10);
    expect(() => fromText(WORKER_SETTINGS.workerBatchSize, '11')).toThrow(/FIFO limit/);
    expect(() => fromText(WORKER_SETTINGS.maxReceiveCount, '4')).toThrow();
  });

  it("needs the SQS event source's least maximum concurrency of 2", () => {
    expect(() => fromText(WORKER_SETTINGS.workerMaxConcurrency, '1')).toThrow(/maximum concurrency/);
  });
});
