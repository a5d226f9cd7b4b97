/** What the embedded queue refuses, as SQS refuses it: a `QueueRefusedError` with SQS's error code. */
import { FIFO_ID, MAX_MESSAGE_BYTES, MAX_VISIBILITY_TIMEOUT_SECONDS, NOT_XML_CHARACTER } from '../sqs-limits.js';
import { QueueRefusedError } from '../queue-refused.js';

/** Refuses a missing group or deduplication id, or one outside SQS's FIFO id rule. */
export function checkId(kind: 'MessageGroupId' | 'MessageDeduplicationId', value: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new QueueRefusedError('MissingParameter', `${kind} is required for FIFO queues`);
  }
  if (!FIFO_ID.test(value)) {
    throw new QueueRefusedError('InvalidParameterValue', `${kind} must be 1-128 printable ASCII characters`);
  }
}

/** Refuses an empty body, one past SQS's size limit, or one with a character outside XML 1.0. */
export function checkBody(body: string): void {
  if (typeof body !== 'string' || body.length === 0) {
    throw new QueueRefusedError('MissingParameter', 'MessageBody must not be empty');
  }
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > MAX_MESSAGE_BYTES) {
    throw new QueueRefusedError(
      'InvalidParameterValue',
      `MessageBody is ${bytes} bytes; the limit is ${MAX_MESSAGE_BYTES}`,
    );
  }
  if (NOT_XML_CHARACTER.test(body)) {
    throw new QueueRefusedError('InvalidMessageContents', 'MessageBody contains characters outside XML 1.0');
  }
}

/** Refuses a parameter that is not a whole number within the range SQS allows for it. */
export function checkIntegerInRange(what: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new QueueRefusedError(
      'InvalidParameterValue',
      `${what} must be an integer in [${min}, ${max}], got ${value}`,
    );
  }
}

/** SQS hides a message at most 12 hours from its first receive: a change that would end later is refused. */
export function checkVisibilityCeiling(timeoutMs: number, now: number, firstReceivedAt: number): void {
  if (now + timeoutMs <= firstReceivedAt + MAX_VISIBILITY_TIMEOUT_SECONDS * 1000) return;
  throw new QueueRefusedError(
    'InvalidParameterValue',
    `Value ${Math.ceil(timeoutMs / 1000)} for parameter VisibilityTimeout is invalid. Reason: Total ` +
      `VisibilityTimeout for the message is beyond the limit [${MAX_VISIBILITY_TIMEOUT_SECONDS} seconds]`,
  );
}
