import { describe, expect, it } from 'vitest';
import { ShapeError } from '../../lib/errors.js';
import { readWorkflowRun } from '../../lib/webhook/workflow-run.js';
import { realExamples } from '../support/webhooks.js';

type Payload = Record<string, unknown> & { workflow_run: Record<string, unknown> };

/** GitHub's completed workflow_run example, with the conclusion and attempt a case needs. */
function completed(conclusion: string, runAttempt = 1): Payload {
  const example = realExamples('workflow_run').find(
    (p) => (p as { action?: string }).action === 'completed',
  ) as Payload;
  return { ...example, workflow_run: { ...example.workflow_run, conclusion, run_attempt: runAttempt } };
}

describe('readWorkflowRun: one read of a workflow_run delivery', () => {
  it('a completed red run: not ignored, its queue message built, its branch run read', () => {
    const payload = completed('failure');
    const read = readWorkflowRun(payload, 'guid-1');
    expect(read.ignored).toBeUndefined();
    expect(read.greenRerun).toBe(false);
    expect(read.message).toMatchObject({
      v: 1,
      deliveryId: 'guid-1',
      runId: payload.workflow_run.id,
      conclusion: 'failure',
    });
    expect(typeof read.branchRun === 'string' ? read.branchRun : read.branchRun.run.runId).toBe(
      typeof read.branchRun === 'string' ? read.branchRun : payload.workflow_run.id,
    );
  });

  it('a green completion of a later attempt is a re-run’s outcome: its attempt read, nothing to enqueue', () => {
    const payload = completed('success', 2);
    const read = readWorkflowRun(payload, 'guid-2');
    expect(read.greenRerun).toBe(true);
    expect(read.attempt).toMatchObject({ runId: payload.workflow_run.id, runAttempt: 2 });
    expect(read.ignored).toBe('ignored: conclusion success');
    expect(read.message).toBeInstanceOf(ShapeError);
  });

  it('a first green attempt is no re-run, and an action other than completed is ignored', () => {
    expect(readWorkflowRun(completed('success', 1), 'g').greenRerun).toBe(false);
    expect(readWorkflowRun({ ...completed('failure'), action: 'requested' }, 'g').ignored).toBe(
      'ignored: action requested',
    );
  });

  it('a red run whose payload misses a field answers a ShapeError naming it, not an exception', () => {
    const payload = completed('failure');
    const read = readWorkflowRun({ ...payload, workflow_run: { ...payload.workflow_run, id: 'x' } }, 'g');
    expect(read.message).toBeInstanceOf(ShapeError);
    expect((read.message as ShapeError).message).toBe('workflow_run.id: expected an id');
  });

  it('a fork’s run is not its branch’s run', () => {
    const payload = completed('failure');
    const fork = { ...payload, workflow_run: { ...payload.workflow_run, head_repository: { id: 999_999 } } };
    expect(readWorkflowRun(fork, 'g').branchRun).toBe('the head repository is not the repository');
  });
});
