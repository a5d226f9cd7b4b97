import { describe, expect, it } from 'vitest';
import { exitAnnotation, lostAnnotation, lostJob } from '../support/evidence.js';
import { harnessForFile } from '../support/harness.js';

const h = harnessForFile();

async function decideOnce(runId: number, over = {}) {
  const worker = h.worker(over);
  const res = await worker(h.sqsEvent([h.message(runId)]));
  expect(res.batchItemFailures).toEqual([]);
  return h.log.named('decision').at(-1);
}

describe('walking skeleton acceptance', () => {
  it('AC1 a job whose runner lost communication is re-run, and the next attempt is run_attempt + 1', async () => {
    const run = h.sim.addRun({
      repo: 'acme/ac1',
      jobs: [{ name: 'build', conclusion: 'success' }, lostJob('test', 'runner-i-0abc1234def567890')],
    });
    const line = await decideOnce(run.id);
    expect(line).toMatchObject({ decision: 'retried', run_id: run.id, run_attempt: 1, repository: 'acme/ac1' });
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(1);
    expect(h.sim.run(run.id).runAttempt).toBe(2);
  });

  it('AC2 a genuine non-zero exit is not re-run', async () => {
    const run = h.sim.addRun({
      repo: 'acme/ac2',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [exitAnnotation()] }],
    });
    const line = await decideOnce(run.id);
    expect(line).toMatchObject({ decision: 'genuine_failure' });
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(0);
    expect(h.sim.run(run.id).runAttempt).toBe(1);
  });

  it('AC3 a run with one genuine failure and one lost runner is not re-run', async () => {
    const run = h.sim.addRun({
      repo: 'acme/ac3',
      jobs: [
        { name: 'unit', conclusion: 'failure', annotations: [exitAnnotation()] },
        { name: 'e2e', conclusion: 'failure', annotations: [lostAnnotation('r-2')] },
      ],
    });
    const line = await decideOnce(run.id);
    expect(line).toMatchObject({ decision: 'genuine_failure' });
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(0);
  });

  it('AC4 only failed and cancelled jobs of the finished attempt are examined, and rerun-failed-jobs is the call made', async () => {
    const run = h.sim.addRun({
      repo: 'acme/ac4',
      jobs: [
        { name: 'lint', conclusion: 'success' },
        { name: 'docs', conclusion: 'skipped' },
        { name: 'shard-1', conclusion: 'failure', annotations: [lostAnnotation('r-1')] },
        { name: 'shard-2', conclusion: 'cancelled', annotations: [] },
      ],
    });
    const lintBefore = h.sim.run(run.id).job('lint')!.id;
    await decideOnce(run.id);
    const examined = h.log.named('job').map((l) => l.name);
    expect(examined.sort()).toEqual(['shard-1', 'shard-2']);
    const calls = h.sim.requests.filter((r) => r.method === 'POST' && /rerun/.test(r.path));
    expect(calls.map((c) => c.path)).toEqual([`/repos/acme/ac4/actions/runs/${run.id}/rerun-failed-jobs`]);
    // The passed job is carried into attempt 2 as the same job, not executed again.
    expect(h.sim.run(run.id).job('lint', 2)!.id).toBe(lintBefore);
  });

  it('AC5 a run lost on every attempt stops at max_attempts and does not loop', async () => {
    const run = h.sim.addRun({
      repo: 'acme/ac5',
      onRerun: 'same',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [lostAnnotation('r-5')] }],
    });
    const decisions: string[] = [];
    for (let i = 0; i < 6; i++) {
      const line = await decideOnce(run.id, { defaults: { maxAttempts: 3, textOnlyMaxAttempts: 3 } });
      decisions.push(String(line?.decision));
      if (line?.decision !== 'retried') break;
    }
    expect(decisions).toEqual(['retried', 'retried', 'attempt_cap']);
    expect(h.sim.run(run.id).runAttempt).toBe(3);
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(2);
  });

  it('AC6 one log line per examined job with its name, runner name and verdict', async () => {
    const run = h.sim.addRun({
      repo: 'acme/ac6',
      jobs: [
        lostJob('a', 'spot-i-0123456789abcdef0'),
        { name: 'b', conclusion: 'cancelled', runnerName: 'spot-2', annotations: [] },
        { name: 'c', conclusion: 'success', runnerName: 'spot-3' },
      ],
    });
    await decideOnce(run.id);
    const jobs = h.log.named('job');
    expect(jobs).toHaveLength(2);
    expect(jobs.map((j) => [j.name, j.runner_name, j.verdict, j.source]).sort()).toEqual([
      ['a', 'spot-i-0123456789abcdef0', 'infra', 'annotations'],
      ['b', 'spot-2', 'inconclusive', 'annotations'],
    ]);
  });
});

describe('messages the worker cannot use', () => {
  it('a malformed message is logged and acknowledged, not retried forever', async () => {
    const run = h.sim.addRun({ repo: 'acme/poison', jobs: [{ name: 't', conclusion: 'failure', annotations: [] }] });
    const event = h.sqsEvent([h.message(run.id)]);
    const record = event.Records[0]!;
    const res = await h.worker()({ Records: [{ ...record, body: '{"v":1,"runId":"not a number"}' }] });
    expect(res.batchItemFailures).toEqual([]);
    expect(h.log.named('message dropped: permanent fault')[0]).toMatchObject({
      reason: expect.stringMatching(/^malformed message/),
    });
    expect(h.metrics.get('PoisonMessage')).toBeGreaterThan(0);
  });

  it('a message for an installation GitHub does not know is acknowledged with its reason', async () => {
    const run = h.sim.addRun({ repo: 'acme/gone', jobs: [{ name: 't', conclusion: 'failure', annotations: [] }] });
    const msg = h.message(run.id, undefined, 999_999);
    const res = await h.worker()(h.sqsEvent([msg]));
    expect(res.batchItemFailures).toEqual([]);
    expect(h.log.named('message dropped: permanent fault')[0]).toMatchObject({ reason: 'unknown installation' });
  });
});
