import { describe, expect, it } from 'vitest';
import { recordOf } from '../../support/sqs/sqs-record.js';

const SOURCE = { queueArn: 'arn:aws:sqs:eu-west-1:123456789012:runs.fifo', region: 'eu-west-1' };

describe('recordOf: a received message as the Lambda event source record', () => {
  it('carries the id, handle, body, digest and every system attribute the worker reads', () => {
    const record = recordOf(
      {
        MessageId: 'm-1',
        ReceiptHandle: 'h-1',
        Body: '{"v":1}',
        MD5OfBody: 'abc',
        Attributes: {
          ApproximateReceiveCount: '2',
          SentTimestamp: '1700000000000',
          SenderId: 'AIDA',
          ApproximateFirstReceiveTimestamp: '1700000001000',
          MessageGroupId: 'repo-1',
          MessageDeduplicationId: 'run-7-1',
          SequenceNumber: '18800',
        },
      },
      SOURCE,
    );
    expect(record).toEqual({
      messageId: 'm-1',
      receiptHandle: 'h-1',
      body: '{"v":1}',
      md5OfBody: 'abc',
      attributes: {
        ApproximateReceiveCount: '2',
        SentTimestamp: '1700000000000',
        SenderId: 'AIDA',
        ApproximateFirstReceiveTimestamp: '1700000001000',
        MessageGroupId: 'repo-1',
        MessageDeduplicationId: 'run-7-1',
        SequenceNumber: '18800',
      },
      messageAttributes: {},
      eventSource: 'aws:sqs',
      eventSourceARN: SOURCE.queueArn,
      awsRegion: 'eu-west-1',
    });
  });

  it('leaves out the optional attributes a message does not have, as Lambda does', () => {
    const record = recordOf({ MessageId: 'm', ReceiptHandle: 'h', Body: 'b', Attributes: {} }, SOURCE);
    expect(Object.keys(record.attributes).sort()).toEqual([
      'ApproximateFirstReceiveTimestamp',
      'ApproximateReceiveCount',
      'SenderId',
      'SentTimestamp',
    ]);
  });

  it('spells message attributes in camel case, binary values in base64', () => {
    const record = recordOf(
      {
        MessageId: 'm',
        ReceiptHandle: 'h',
        Body: 'b',
        MessageAttributes: {
          trace: { DataType: 'String', StringValue: 't-1' },
          blob: { DataType: 'Binary', BinaryValue: Uint8Array.from([1, 2, 255]) },
        },
      },
      SOURCE,
    );
    expect(record.messageAttributes).toEqual({
      trace: { dataType: 'String', stringValue: 't-1' },
      blob: { dataType: 'Binary', binaryValue: Buffer.from([1, 2, 255]).toString('base64') },
    });
  });

  it('refuses a message without its id, receipt handle or body, naming it', () => {
    expect(() => recordOf({ MessageId: 'm-9', Body: 'b' }, SOURCE)).toThrow(/m-9/);
    expect(() => recordOf({ ReceiptHandle: 'h', Body: 'b' }, SOURCE)).toThrow(/without its id/);
    expect(() => recordOf({ MessageId: 'm', ReceiptHandle: 'h' }, SOURCE)).toThrow(/body/);
  });

  it('keeps an empty body: SQS refuses one on send, but a record is what was received', () => {
    expect(recordOf({ MessageId: 'm', ReceiptHandle: 'h', Body: '' }, SOURCE).body).toBe('');
  });
});
