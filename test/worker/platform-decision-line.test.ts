import { describe, expect, it } from 'vitest';
import { lostJob } from '../support/evidence.js';
import { harnessForFile } from '../support/harness.js';

const h = harnessForFile();

/** As actions/runner-images#2179 quotes it (test/fixtures/real-reports). */
const INTERNAL = 'GitHub Actions has encountered an internal error when running your job.';

async function decideOnce(runId: number) {
  const res = await h.worker()(h.sqsEvent([h.message(runId)]));
  expect(res.batchItemFailures).toEqual([]);
  return { decision: h.log.named('decision').at(-1), jobs: h.log.named('job') };
}

describe('the decision line and job lines name the platform family', () => {
  it('a job lost to a GitHub platform failure: job line source platform, decision line evidence [platform], re-run once', async () => {
    const run = h.sim.addRun({
      repo: 'acme/platform-line',
      jobs: [{ name: 'e2e', conclusion: 'failure', annotations: [{ level: 'failure', message: INTERNAL }] }],
    });
    const { decision, jobs } = await decideOnce(run.id);
    expect(jobs.find((j) => j.name === 'e2e')).toMatchObject({ verdict: 'infra', source: 'platform' });
    expect(decision).toMatchObject({ decision: 'retried', evidence: ['platform'] });
    expect(String(decision?.reason)).toContain('GitHub platform failure');
    expect(h.sim.rerunTally(run.id).accepted).toBe(1);
  });

  it('a runner lost beside it: the decision line names both families, each once', async () => {
    const run = h.sim.addRun({
      repo: 'acme/platform-line',
      jobs: [
        { name: 'e2e', conclusion: 'failure', annotations: [{ level: 'failure', message: INTERNAL }] },
        lostJob('unit', 'runner-i-0abc1234def567890'),
      ],
    });
    const { decision } = await decideOnce(run.id);
    expect(decision).toMatchObject({ decision: 'retried' });
    expect([...(decision?.evidence as string[])].sort()).toEqual(['annotations', 'platform']);
  });

  it('a genuine failure: the decision line has no evidence field', async () => {
    const run = h.sim.addRun({
      repo: 'acme/platform-line',
      jobs: [
        {
          name: 'unit',
          conclusion: 'failure',
          annotations: [{ level: 'failure', message: 'Process completed with exit code 1.' }],
        },
      ],
    });
    const { decision } = await decideOnce(run.id);
    expect(decision).toMatchObject({ decision: 'genuine_failure' });
    expect(decision).not.toHaveProperty('evidence');
  });
});
