import { describe, expect, it } from 'vitest';
import {
  repriseOutputs,
  STACK_OUTPUT_NAMES,
  stackOutputDescription,
  type StackOutputName,
} from '../../lib/config/stack-outputs.js';

const tagged = (name: StackOutputName, key: string, value: string) => ({
  OutputKey: key,
  OutputValue: value,
  Description: stackOutputDescription(name),
});

describe('stackOutputDescription', () => {
  it('says what the output holds, then the tag the command finds it by', () => {
    expect(stackOutputDescription('TableName')).toBe('DynamoDB table (reprise TableName)');
    for (const name of STACK_OUTPUT_NAMES)
      expect(stackOutputDescription(name)).toMatch(new RegExp(`\\(reprise ${name}\\)$`));
  });
});

describe('repriseOutputs', () => {
  it("tagged outputs are found by their tag, whatever the construct's logical id", () => {
    const r = repriseOutputs([
      tagged('TableName', 'RepriseTableName1A2B3C4D', 'reprise-table'),
      tagged('QueueUrl', 'RepriseQueueUrlABCD', 'https://sqs/q.fifo'),
      { OutputKey: 'Other', OutputValue: 'x', Description: 'not ours' },
    ]);
    expect(r).toEqual({
      ok: true,
      outputs: new Map([
        ['TableName', 'reprise-table'],
        ['QueueUrl', 'https://sqs/q.fifo'],
      ]),
    });
  });

  it('an untagged output named like a reprise output counts only where no tagged one has the name', () => {
    const r = repriseOutputs([
      { OutputKey: 'TableName', OutputValue: 'old-table' },
      { OutputKey: 'WebhookUrl', OutputValue: 'https://old/webhook' },
      tagged('TableName', 'RepriseTableName1A2B', 'new-table'),
    ]);
    expect(r.ok && Object.fromEntries(r.outputs)).toEqual({
      TableName: 'new-table',
      WebhookUrl: 'https://old/webhook',
    });
  });

  it('two tagged outputs of one name (two constructs in one stack) are ambiguous, and both keys are named', () => {
    expect(repriseOutputs([tagged('TableName', 'ATableName', 'a'), tagged('TableName', 'BTableName', 'b')])).toEqual({
      ok: false,
      name: 'TableName',
      keys: ['ATableName', 'BTableName'],
    });
  });

  it('outputs without a key or a value are skipped; no outputs is an empty map', () => {
    expect(repriseOutputs([{ OutputKey: 'TableName' }, { OutputValue: 'v' }])).toEqual({
      ok: true,
      outputs: new Map(),
    });
    expect(repriseOutputs([{ OutputKey: 'toString', OutputValue: 'x', Description: '(reprise toString)' }])).toEqual({
      ok: true,
      outputs: new Map(),
    });
  });
});
