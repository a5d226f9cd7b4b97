/** The limits SQS enforces on a FIFO queue, as the intake, the worker and the embedded queue read them. */
import { describe, expect, it } from 'vitest';
import {
  DEDUPLICATION_WINDOW_MS,
  FIFO_ID,
  MAX_MESSAGE_BYTES,
  MAX_RECEIVE_BATCH,
  MAX_VISIBILITY_TIMEOUT_SECONDS,
  NOT_XML_CHARACTER,
} from '../../lib/queue/sqs-limits.js';

describe('SQS FIFO limits', () => {
  it("are SQS's: 256 KiB a message, 12 hours of visibility, 10 a receive, 5 minutes of deduplication", () => {
    expect(MAX_MESSAGE_BYTES).toBe(256 * 1024);
    expect(MAX_VISIBILITY_TIMEOUT_SECONDS).toBe(12 * 60 * 60);
    expect(MAX_RECEIVE_BATCH).toBe(10);
    expect(DEDUPLICATION_WINDOW_MS).toBe(5 * 60 * 1000);
  });

  it.each([
    ['a', true],
    ['x'.repeat(128), true],
    ['!~#:-_', true],
    ['', false],
    ['x'.repeat(129), false],
    ['with space', false],
    ['tab\there', false],
    ['ünïcode', false],
  ])('a group or deduplication id %j is valid: %s', (id, valid) => {
    expect(FIFO_ID.test(id)).toBe(valid);
  });

  it.each([
    ['plain text and JSON', '{"a": 1}', false],
    ['tab, newline, carriage return', '\t\n\r', false],
    ['characters past the basic plane', '😀', false],
    ['a NUL', '\u0000', true],
    ['a vertical tab', '\u000b', true],
    ['a lone surrogate', '\udc00', true],
    ['U+FFFE', '\ufffe', true],
  ])('%s: outside XML 1.0 is %s', (_label, text, outside) => {
    expect(NOT_XML_CHARACTER.test(text)).toBe(outside);
  });
});
