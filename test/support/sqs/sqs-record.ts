/**
 * A message as ReceiveMessage answers it, turned into the record Lambda's SQS event source mapping
 * hands the worker, so a record read by the SQS queue's `receive` is the one an invocation carries.
 */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttribute, SQSRecord, SQSRecordAttributes } from 'aws-lambda';

export interface RecordSource {
  /** The queue the message was received from, as `eventSourceARN`. */
  readonly queueArn: string;
  readonly region: string;
}

/** A message without the fields every received message has was not answered by ReceiveMessage. */
export function recordOf(message: Message, source: RecordSource): SQSRecord {
  const { MessageId, ReceiptHandle, Body } = message;
  if (!MessageId || !ReceiptHandle || Body === undefined) {
    throw new Error(`received a message without its id, receipt handle or body (message ${MessageId ?? 'unknown'})`);
  }
  const a = message.Attributes ?? {};
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: a.ApproximateReceiveCount ?? '',
    SentTimestamp: a.SentTimestamp ?? '',
    SenderId: a.SenderId ?? '',
    ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? '',
  };
  // Lambda's record carries these only when the message has them (FIFO ids, a trace header).
  const optional = ['SequenceNumber', 'MessageGroupId', 'MessageDeduplicationId', 'AWSTraceHeader'] as const;
  for (const name of optional) if (a[name] !== undefined) attributes[name] = a[name];
  return {
    messageId: MessageId,
    receiptHandle: ReceiptHandle,
    body: Body,
    attributes,
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, attributeOf(value)]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: source.queueArn,
    awsRegion: source.region,
  };
}

/** Lambda spells message attributes in camel case and gives binary values in base64. */
function attributeOf(value: MessageAttributeValue): SQSMessageAttribute {
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  const out: SQSMessageAttribute = { dataType: value.DataType ?? 'String' };
  if (value.StringValue !== undefined) out.stringValue = value.StringValue;
  if (value.BinaryValue !== undefined) out.binaryValue = base64(value.BinaryValue);
  if (value.StringListValues?.length) out.stringListValues = value.StringListValues;
  if (value.BinaryListValues?.length) out.binaryListValues = value.BinaryListValues.map(base64);
  return out;
}
