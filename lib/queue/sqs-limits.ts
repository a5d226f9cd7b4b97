/**
 * The limits Amazon SQS enforces on a FIFO queue, in one place: the intake checks a message
 * against them before sending, the worker caps its deferrals by them, and the embedded queue
 * refuses what SQS would refuse, so a message that works locally is not rejected once deployed.
 */

/** MaximumMessageSize of a new queue (256 KiB). */
export const MAX_MESSAGE_BYTES = 262_144;

/** Longest visibility timeout, in seconds (12 hours). */
export const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;

/** Most messages one ReceiveMessage call, or one Lambda invocation of a FIFO queue, carries. */
export const MAX_RECEIVE_BATCH = 10;

/** How long SQS remembers a deduplication id, in milliseconds. */
export const DEDUPLICATION_WINDOW_MS = 5 * 60 * 1000;

/**
 * SQS's rule for a message group or deduplication id: 1-128 printable ASCII characters, no spaces.
 * The one rule: the embedded queue refuses by it, and the intake checks a delivery GUID (its
 * deduplication id) by it.
 */
export const FIFO_ID = /^[\x21-\x7e]{1,128}$/;

/** A character SQS refuses in a message body: it accepts only those XML 1.0 allows. */
export const NOT_XML_CHARACTER = /[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
