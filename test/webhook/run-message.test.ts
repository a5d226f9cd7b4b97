import { describe, expect, it } from 'vitest';
import { ShapeError } from '../../lib/errors.js';
import { messageGroupId, parseRunMessage } from '../../lib/webhook/run-message.js';
import { runMessageFromPayload } from '../../lib/webhook/workflow-run.js';
import { realExamples } from '../support/webhooks.js';

/** A queue message as the intake sends it, from GitHub's completed workflow_run example turned red. */
function sentMessage() {
  const example = realExamples('workflow_run').find((p) => (p as { action?: string }).action === 'completed') as {
    workflow_run: Record<string, unknown>;
  };
  return runMessageFromPayload({ ...example, workflow_run: { ...example.workflow_run, conclusion: 'failure' } }, 'g-1');
}

describe('parseRunMessage: a queue message read back', () => {
  it('reads back what the intake sent, unchanged', () => {
    const sent = sentMessage();
    expect(parseRunMessage(JSON.stringify(sent))).toEqual(sent);
  });

  it('a body that is not JSON, of another version, or with a field out of shape is a ShapeError naming it', () => {
    const sent = sentMessage();
    expect(() => parseRunMessage('{')).toThrow('message body is not JSON');
    expect(() => parseRunMessage(JSON.stringify({ ...sent, v: 2 }))).toThrow('message.v: expected 1');
    expect(() => parseRunMessage(JSON.stringify({ ...sent, runAttempt: 0 }))).toThrow(ShapeError);
    expect(() => parseRunMessage(JSON.stringify({ ...sent, conclusion: 'success' }))).toThrow('message.conclusion');
  });
});

describe('messageGroupId: the FIFO group', () => {
  it('is the repository and the run: every attempt of one run in order, other runs in parallel', () => {
    const sent = sentMessage();
    expect(messageGroupId(sent)).toBe(`${sent.repository.id}#${sent.runId}`);
    expect(messageGroupId({ ...sent, runAttempt: sent.runAttempt + 1 })).toBe(messageGroupId(sent));
    expect(messageGroupId({ ...sent, runId: sent.runId + 1 })).not.toBe(messageGroupId(sent));
  });
});
