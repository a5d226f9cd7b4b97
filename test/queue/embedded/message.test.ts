/** A stored message's transitions and the Lambda-shaped record it is handed out as. */
import { describe, expect, it } from 'vitest';
import {
  isInFlight,
  markDeferred,
  markReceived,
  markRedriven,
  sqsRecordOf,
} from '../../../lib/queue/embedded/message.js';
import { stored } from './stored.js';

const ARN = 'arn:aws:sqs:local:000000000000:q.fifo';

describe('isInFlight', () => {
  it.each([
    ['never received', stored({ visibleAt: 50 }), false],
    ['received, its timeout running', stored({ receiptHandle: 'h', visibleAt: 101 }), true],
    ['received, its timeout ended at this instant', stored({ receiptHandle: 'h', visibleAt: 100 }), false],
    ['deferred until later', stored({ receiptHandle: 'h', visibleAt: 500, deferred: true }), true],
  ])('%s: %s', (_label, message, inFlight) => {
    expect(isInFlight(message, 100)).toBe(inFlight);
  });
});

describe('markReceived', () => {
  it('hands a new handle, counts the receive, keeps the first receive time, and ends a deferral', () => {
    const m = stored();
    markReceived(m, 'h1', 1_000, 31_000);
    expect(m).toMatchObject({ receiptHandle: 'h1', receiveCount: 1, firstReceivedAt: 1_000, visibleAt: 31_000 });
    markDeferred(m, 40_000);
    markReceived(m, 'h2', 40_000, 70_000);
    expect(m).toMatchObject({ receiptHandle: 'h2', receiveCount: 2, firstReceivedAt: 1_000, deferred: false });
  });
});

describe('markDeferred', () => {
  it('hides the message until the given time, its handle kept', () => {
    const m = stored({ receiptHandle: 'h', visibleAt: 30_000, receiveCount: 1, firstReceivedAt: 0 });
    markDeferred(m, 90_000);
    expect(m).toMatchObject({ visibleAt: 90_000, deferred: true, receiptHandle: 'h' });
  });
});

describe('markRedriven', () => {
  it('starts the message over at the tail: visible now, no receives, no first receive, no handle', () => {
    const m = stored({ receiptHandle: 'h', receiveCount: 5, firstReceivedAt: 10, deferred: true, visibleAt: 99 });
    markRedriven(m, 42, 7_000);
    expect(m).toMatchObject({
      order: 42,
      visibleAt: 7_000,
      receiveCount: 0,
      firstReceivedAt: undefined,
      receiptHandle: undefined,
      deferred: false,
    });
  });
});

describe('sqsRecordOf', () => {
  it("is the event source's record: the worker's attributes as strings, the queue's ARN", () => {
    const record = sqsRecordOf(stored({ receiptHandle: 'h', receiveCount: 2, firstReceivedAt: 1_234 }), ARN);
    expect(record).toMatchObject({
      messageId: 'm1',
      receiptHandle: 'h',
      body: 'hello',
      eventSource: 'aws:sqs',
      eventSourceARN: ARN,
      attributes: {
        ApproximateReceiveCount: '2',
        ApproximateFirstReceiveTimestamp: '1234',
        MessageGroupId: 'g',
        MessageDeduplicationId: 'd1',
      },
    });
  });

  it('a message never received has an empty handle and no first receive time', () => {
    const record = sqsRecordOf(stored(), ARN);
    expect(record.receiptHandle).toBe('');
    expect(record.attributes.ApproximateFirstReceiveTimestamp).toBe('');
    expect(record.attributes.ApproximateReceiveCount).toBe('0');
  });
});
