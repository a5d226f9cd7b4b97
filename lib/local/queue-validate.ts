/**
 * Input checks with the limits Amazon SQS enforces, so a message that works
 * locally is not rejected once deployed.
 */

/** SQS error codes, so callers can map a local failure to what the SDK would throw. */
export type QueueErrorCode = 'InvalidParameterValue' | 'MissingParameter' | 'InvalidMessageContents';

export class QueueInputError extends Error {
  constructor(
    readonly code: QueueErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'QueueInputError';
  }
}

/** Default MaximumMessageSize of a new queue; the service ceiling is 1 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 262_144;
export const MAX_DELAY_SECONDS = 900;
export const MAX_VISIBILITY_TIMEOUT_MS = 12 * 60 * 60 * 1000;
export const MAX_RECEIVE_BATCH = 10;

// Group and deduplication ids: 1-128 printable ASCII characters, no spaces.
const ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
// SQS accepts only the characters XML 1.0 allows.
const INVALID_BODY_CHAR = /[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
const FIFO_NAME = /^[A-Za-z0-9_-]{1,75}\.fifo$/;

export function checkQueueName(name: string): void {
  if (!FIFO_NAME.test(name)) {
    throw new QueueInputError('InvalidParameterValue', `invalid FIFO queue name ${JSON.stringify(name)}`);
  }
}

export function checkId(kind: 'MessageGroupId' | 'MessageDeduplicationId', value: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new QueueInputError('MissingParameter', `${kind} is required for FIFO queues`);
  }
  if (!ID_PATTERN.test(value)) {
    throw new QueueInputError('InvalidParameterValue', `${kind} must be 1-128 printable ASCII characters`);
  }
}

export function checkBody(body: string, maxBytes: number): void {
  if (typeof body !== 'string' || body.length === 0) {
    throw new QueueInputError('MissingParameter', 'MessageBody must not be empty');
  }
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > maxBytes) {
    throw new QueueInputError('InvalidParameterValue', `MessageBody is ${bytes} bytes; the limit is ${maxBytes}`);
  }
  if (INVALID_BODY_CHAR.test(body)) {
    throw new QueueInputError('InvalidMessageContents', 'MessageBody contains characters outside XML 1.0');
  }
}

export function checkIntegerInRange(what: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new QueueInputError('InvalidParameterValue', `${what} must be an integer in [${min}, ${max}], got ${value}`);
  }
}
