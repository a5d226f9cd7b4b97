/**
 * One POST per re-run call. A re-run POST creates content and may have been acted on even when
 * its answer is an error, so the HTTP client never sends it again in-process, whatever the
 * status; the queue and the reconciler decide what happens next. Counted from every re-run
 * request the simulator received, whatever it answered.
 */
import { describe, expect, it } from 'vitest';
import { lostAnnotation } from '../support/evidence.js';
import { harnessForFile } from '../support/harness.js';

const h = harnessForFile({ clearFaults: true });

let seq = 0;
const lostRun = () =>
  h.sim.addRun({
    repo: `acme/one-post-${++seq}`,
    jobs: [{ name: 'test', conclusion: 'failure', annotations: [lostAnnotation('r-1')] }],
  });
const RERUN_FAILED = /\/rerun-failed-jobs$/;

describe('one POST per re-run call', () => {
  it('a 409 on rerun-failed-jobs is GitHub’s answer: exactly one POST, decided rerun_rejected', async () => {
    const run = lostRun();
    h.sim.injectFault({ method: 'POST', path: RERUN_FAILED, status: 409, message: 'Conflict' });
    const res = await h.worker()(h.sqsEvent([h.message(run.id)]));
    expect(res.batchItemFailures).toEqual([]);
    expect(h.sim.rerunTally(run.id).received).toBe(1);
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'rerun_rejected' });
  });

  it('a 502 on rerun-failed-jobs: exactly one POST; the message goes back, and its retry is logged as an unsettled call, not a duplicate of another worker', async () => {
    const run = lostRun();
    h.sim.injectFault({ method: 'POST', path: RERUN_FAILED, status: 502 });
    const message = h.message(run.id);
    const first = await h.worker()(h.sqsEvent([message]));
    expect(first.batchItemFailures).toHaveLength(1);
    expect(h.sim.rerunTally(run.id).received).toBe(1);

    // The redelivery, while the failed call's claim still holds.
    const again = await h.worker()(h.sqsEvent([message]));
    expect(again.batchItemFailures).toEqual([]);
    expect(h.sim.rerunTally(run.id).received).toBe(1);
    expect(h.log.named('decision').filter((l) => l.run_id === run.id)).toEqual([]);
    const unsettled = h.log.named('re-run call unsettled').find((l) => l.run_id === run.id);
    expect(String(unsettled?.reason)).toMatch(
      /^the re-run call of attempt 1 failed \(.*502.*\) and GitHub may have acted/,
    );
    expect(String(unsettled?.reason)).not.toMatch(/another worker/);
  });

  it('a secondary rate limit with a short retry-after on the re-run POST: one POST, the claim given back, the message retried later', async () => {
    const run = lostRun();
    h.sim.injectFault({
      method: 'POST',
      path: RERUN_FAILED,
      status: 403,
      times: 1,
      message: 'You have exceeded a secondary rate limit. Please wait.',
      retryAfter: 1,
    });
    const message = h.message(run.id);
    const first = await h.worker()(h.sqsEvent([message]));
    expect(first.batchItemFailures).toHaveLength(1);
    expect(h.sim.rerunTally(run.id).received).toBe(1);
    // Turned away before GitHub acted: the retry decides afresh and re-runs once.
    const again = await h.worker()(h.sqsEvent([message]));
    expect(again.batchItemFailures).toEqual([]);
    expect(h.sim.rerunTally(run.id)).toMatchObject({ received: 2, accepted: 1 });
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'retried' });
  });

  it.each([500, 502, 503, 409])(
    'control: a GET answered %i is still retried in-process, and the counter sees each try',
    async (status) => {
      const run = lostRun();
      h.sim.injectFault({ method: 'GET', path: /\/actions\/runs\/\d+\/jobs$/, status, times: 1 });
      const res = await h.worker()(h.sqsEvent([h.message(run.id)]));
      expect(res.batchItemFailures).toEqual([]);
      expect(h.sim.count('GET', /\/actions\/runs\/\d+\/jobs$/)).toBe(2);
      expect(h.sim.rerunTally(run.id).received).toBe(1);
    },
  );
});
