import { MessageNotInflight, ReceiptHandleIsInvalid, RequestThrottled, SQSServiceException } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { QueueRefusedError } from '../../../lib/queue/queue-refused.js';
import { refusalOf, refusing } from '../../../lib/queue/sqs/sqs-refusal.js';

const META = { $metadata: {} };
/** An error SQS answers with a code the SDK has no class for, as the client builds it. */
const serviceError = (name: string, message: string) =>
  new SQSServiceException({ name, message, $fault: 'client', ...META });

describe('refusalOf: SQS refusals as the queue contract names them', () => {
  it.each([
    [
      'ReceiptHandleIsInvalid',
      new ReceiptHandleIsInvalid({ message: 'The input receipt handle is invalid.', ...META }),
    ],
    ['MessageNotInflight', new MessageNotInflight({ message: 'not in flight', ...META })],
    ['InvalidParameterValue', serviceError('InvalidParameterValue', 'Value 43201 for parameter VisibilityTimeout')],
    ['MissingParameter', serviceError('MissingParameter', 'MessageGroupId')],
    ['InvalidMessageContents', serviceError('InvalidMessageContents', 'bad characters')],
  ])('%s becomes a QueueRefusedError with its code and message', (code, error) => {
    const refusal = refusalOf(error);
    expect(refusal).toBeInstanceOf(QueueRefusedError);
    expect(refusal?.code).toBe(code);
    expect(refusal?.message).toBe(error.message);
  });

  it("reads the query protocol's Code when the name is generic", () => {
    const error = Object.assign(new Error('expired'), { name: 'SQSServiceException', Code: 'InvalidParameterValue' });
    expect(refusalOf(error)?.code).toBe('InvalidParameterValue');
  });

  it('is no refusal for a fault that is not about the message: throttling, a network error, a non-error', () => {
    expect(refusalOf(new RequestThrottled({ message: 'slow down', ...META }))).toBeUndefined();
    expect(refusalOf(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }))).toBeUndefined();
    expect(refusalOf('InvalidParameterValue')).toBeUndefined();
    expect(refusalOf(undefined)).toBeUndefined();
  });
});

describe('refusing: one SQS call', () => {
  it('answers what the call answered', async () => {
    expect(await refusing(async () => 42)).toBe(42);
  });

  it('rejects a refusal as a QueueRefusedError', async () => {
    const call = refusing(async () => {
      throw new ReceiptHandleIsInvalid({ message: 'stale', ...META });
    });
    await expect(call).rejects.toBeInstanceOf(QueueRefusedError);
    await expect(call).rejects.toMatchObject({ code: 'ReceiptHandleIsInvalid', message: 'stale' });
  });

  it('rejects any other fault as it came, so a retry policy still sees it', async () => {
    const fault = new RequestThrottled({ message: 'slow down', ...META });
    await expect(
      refusing(async () => {
        throw fault;
      }),
    ).rejects.toBe(fault);
  });
});
