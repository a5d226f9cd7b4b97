/**
 * Issue 32, item 3, in the worker against the simulator: when the intake's record of the branch
 * cannot answer (missing, e.g. a write that failed), one listing of the branch's runs does.
 */
import { describe, expect, it } from 'vitest';
import { lostJob } from '../support/evidence.js';
import { branchRunFrom } from '../../lib/webhook/branch-run.js';
import { harnessForFile, INSTALLATION_ID } from '../support/harness.js';
import { workflowRunPayload } from '../support/webhooks.js';

const h = harnessForFile();
const NOTHING_RECORDED = { branchRuns: { newest: () => Promise.resolve(undefined) } };
const listings = () => h.sim.count('GET', /\/actions\/workflows\/\d+\/runs$/);

async function decide(runId: number, over = {}) {
  const res = await h.worker(over)(h.sqsEvent([h.message(runId)]));
  expect(res.batchItemFailures).toEqual([]);
  return h.log.named('decision').find((l) => l.run_id === runId);
}

const lostOn = (repo: string, branch: string, event = 'push') =>
  h.sim.addRun({ repo, event, headBranch: branch, jobs: [lostJob('deploy', 'runner-i-0abc1234def567890')] });

describe('item 3: the record missing, one listing decides a branch run', () => {
  it('a newer commit’s run on the branch → stale, after exactly one listing and no re-run', async () => {
    const older = lostOn('acme/cold-stale', 'main');
    const newer = h.sim.addRun({
      repo: 'acme/cold-stale',
      headBranch: 'main',
      jobs: [{ name: 'deploy', conclusion: null }],
    });
    const line = await decide(older.id, NOTHING_RECORDED);
    expect(line).toMatchObject({ decision: 'stale' });
    expect(String(line?.reason)).toContain(`newer run ${newer.id} of the same workflow on branch main`);
    expect(listings()).toBe(1);
    expect(h.sim.rerunTally(older.id).received).toBe(0);
  });

  it('the branch head → re-run, after exactly one listing', async () => {
    const head = lostOn('acme/cold-head', 'main');
    expect(await decide(head.id, NOTHING_RECORDED)).toMatchObject({ decision: 'retried' });
    expect(listings()).toBe(1);
  });

  it('a newer pull-request run from a branch of the same name does not supersede a branch run', async () => {
    const older = lostOn('acme/cold-pr', 'main');
    h.sim.addRun({
      repo: 'acme/cold-pr',
      event: 'pull_request',
      headBranch: 'main',
      jobs: [{ name: 'deploy', conclusion: 'success' }],
    });
    expect(await decide(older.id, NOTHING_RECORDED)).toMatchObject({ decision: 'retried' });
  });

  it('stale_check: pull_request (the way back) re-runs a superseded push run without any listing', async () => {
    const older = lostOn('acme/cold-back', 'main');
    h.sim.addRun({ repo: 'acme/cold-back', headBranch: 'main', jobs: [{ name: 'deploy', conclusion: 'success' }] });
    const line = await decide(older.id, { ...NOTHING_RECORDED, defaults: { staleCheck: 'pull_request' } });
    expect(line).toMatchObject({ decision: 'retried' });
    expect(listings()).toBe(0);
  });

  it('warm: the record names a newer commit’s run → stale with no listing', async () => {
    const older = lostOn('acme/warm-stale', 'main');
    const newer = h.sim.addRun({
      repo: 'acme/warm-stale',
      headBranch: 'main',
      jobs: [{ name: 'deploy', conclusion: null }],
    });
    // The intake recorded the newer run from its `in_progress` event.
    const reported = branchRunFrom({ ...workflowRunPayload(h.sim, newer.id, INSTALLATION_ID), action: 'in_progress' });
    if (typeof reported === 'string') throw new Error(reported);
    expect(await h.ledger.branchRuns.record(reported.key, reported.run)).toBe(true);
    expect(await decide(older.id)).toMatchObject({ decision: 'stale' });
    expect(listings()).toBe(0);
  });
});
