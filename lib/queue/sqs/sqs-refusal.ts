/**
 * SQS's refusals of a call, as the queue contract names them: an SDK error whose code is one of
 * `QueueErrorCode` becomes a `QueueRefusedError`, so a refusal is one type with SQS's code on SQS
 * and on the embedded queue, as the contract suite checks. Anything else (throttling, a network fault, a missing
 * queue) is not a refusal of the message and is rethrown as it came.
 */
import { type QueueErrorCode, QueueRefusedError } from '../queue-refused.js';

const REFUSALS: readonly QueueErrorCode[] = [
  'InvalidParameterValue',
  'MissingParameter',
  'InvalidMessageContents',
  'ReceiptHandleIsInvalid',
  'MessageNotInflight',
];

/** The SDK names an error by its code (`name`); the query protocol's older spelling is kept in `Code`. */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, Code } = error as { name?: unknown; Code?: unknown };
  if (typeof Code === 'string') return Code;
  return typeof name === 'string' ? name : undefined;
}

/** An SDK error as a `QueueRefusedError` when SQS refused the call; undefined for any other fault. */
export function refusalOf(error: unknown): QueueRefusedError | undefined {
  const code = codeOf(error);
  if (!REFUSALS.includes(code as QueueErrorCode)) return undefined;
  const message = error instanceof Error && error.message ? error.message : String(code);
  return new QueueRefusedError(code as QueueErrorCode, message);
}

/** Runs one SQS call; a refusal rejects as a `QueueRefusedError`, any other error as it came. */
export async function refusing<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw refusalOf(error) ?? error;
  }
}
