/** What the embedded queue refuses before it changes anything, with the code SQS gives it. */
import { describe, expect, it } from 'vitest';
import { checkBody, checkId, checkIntegerInRange, checkVisibilityCeiling } from '../../../lib/queue/embedded/input.js';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import { MAX_MESSAGE_BYTES } from '../../../lib/queue/sqs-limits.js';

const refusal = (fn: () => void): QueueRefusedError | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(QueueRefusedError);
    return err as QueueRefusedError;
  }
};

describe('checkId', () => {
  it.each([
    ['', 'MissingParameter'],
    ['has space', 'InvalidParameterValue'],
    ['x'.repeat(129), 'InvalidParameterValue'],
    ['é', 'InvalidParameterValue'],
  ])('refuses %j as %s', (value, code) => {
    expect(refusal(() => checkId('MessageGroupId', value))).toMatchObject({ code });
  });

  it.each(['a', 'x'.repeat(128), 'run-1:attempt#2!~'])('takes %j', (value) => {
    expect(refusal(() => checkId('MessageDeduplicationId', value))).toBeUndefined();
  });

  it('names the id it refused', () => {
    expect(refusal(() => checkId('MessageDeduplicationId', ''))?.message).toMatch(/^MessageDeduplicationId/);
  });
});

describe('checkBody', () => {
  it.each([
    ['an empty body', '', 'MissingParameter'],
    ['a body one byte over the limit', 'x'.repeat(MAX_MESSAGE_BYTES + 1), 'InvalidParameterValue'],
    [
      'a body of multibyte characters over the limit in bytes',
      'é'.repeat(MAX_MESSAGE_BYTES / 2 + 1),
      'InvalidParameterValue',
    ],
    ['a control character outside XML 1.0', 'a\u0001b', 'InvalidMessageContents'],
    ['a lone surrogate', 'a\ud800b', 'InvalidMessageContents'],
  ])('refuses %s', (_label, body, code) => {
    expect(refusal(() => checkBody(body))).toMatchObject({ code });
  });

  it.each([
    ['a body at the limit', 'x'.repeat(MAX_MESSAGE_BYTES)],
    ['tabs, newlines and emoji', '\t{"a":"😀"}\r\n'],
  ])('takes %s', (_label, body) => {
    expect(refusal(() => checkBody(body))).toBeUndefined();
  });
});

describe('checkIntegerInRange', () => {
  it.each([0, 10, 5])('takes %s in [0, 10]', (value) => {
    expect(refusal(() => checkIntegerInRange('n', value, 0, 10))).toBeUndefined();
  });

  it.each([-1, 11, 2.5, Number.NaN])('refuses %s as InvalidParameterValue, naming it', (value) => {
    const err = refusal(() => checkIntegerInRange('MaxNumberOfMessages', value, 0, 10));
    expect(err).toMatchObject({ code: 'InvalidParameterValue' });
    expect(err?.message).toContain('MaxNumberOfMessages must be an integer in [0, 10]');
  });
});

describe('checkVisibilityCeiling', () => {
  const HOURS_12 = 43_200_000;

  it('takes a wait that ends exactly 12 hours after the first receive', () => {
    expect(refusal(() => checkVisibilityCeiling(HOURS_12 - 1_000, 1_000, 0))).toBeUndefined();
  });

  it("refuses one that ends later, with SQS's wording", () => {
    const err = refusal(() => checkVisibilityCeiling(HOURS_12 - 999, 1_000, 0));
    expect(err).toMatchObject({ code: 'InvalidParameterValue' });
    expect(err?.message).toMatch(/Total VisibilityTimeout for the message is beyond the limit \[43200 seconds\]/);
  });

  it('counts from the first receive, not from now', () => {
    expect(refusal(() => checkVisibilityCeiling(3_600_000, 11 * 3_600_000, 0))).toBeUndefined();
    expect(refusal(() => checkVisibilityCeiling(3_600_001, 11 * 3_600_000, 0))).toBeDefined();
  });
});
