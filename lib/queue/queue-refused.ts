/** What a queue refuses, as SQS refuses it, with SQS's error codes: both implementations throw this. */
export type QueueErrorCode =
  | 'InvalidParameterValue'
  | 'MissingParameter'
  | 'InvalidMessageContents'
  | 'ReceiptHandleIsInvalid'
  | 'MessageNotInflight';

/** A call the queue refused, with SQS's error code; thrown by both implementations alike. */
export class QueueRefusedError extends Error {
  constructor(
    readonly code: QueueErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'QueueRefusedError';
  }
}
