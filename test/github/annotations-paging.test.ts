/**
 * Every annotation counts. GraphQL reads 50 annotations per job; a job whose page is full has
 * the rest read (over REST) before it is classified, up to the classifier's cap of 1000, past
 * which the job is cut short and the run left alone, at a bounded number of requests.
 */
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS_PER_JOB } from '../../lib/github/annotations.js';
import { SCAN_LIMITS } from '../../lib/classify/scan-budget.js';
import { exitAnnotation, lostAnnotation } from '../support/evidence.js';
import { harnessForFile } from '../support/harness.js';

const h = harnessForFile();

const warnings = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ level: 'warning' as const, message: `deprecated input ${i}` }));

let seq = 0;
async function decide(annotations: { level: 'failure' | 'warning' | 'notice'; message: string }[]) {
  const run = h.sim.addRun({
    repo: `acme/paging-${++seq}`,
    jobs: [{ name: 'test', conclusion: 'failure', annotations }],
  });
  const res = await h.worker()(h.sqsEvent([h.message(run.id)]));
  expect(res.batchItemFailures).toEqual([]);
  const annotationReads = h.sim.requests.filter((r) => /\/check-runs\/\d+\/annotations/.test(r.path)).length;
  const graphql = h.sim.requests.filter((r) => r.path === '/graphql').length;
  return { run, line: h.log.named('decision').at(-1), job: h.log.named('job').at(-1), annotationReads, graphql };
}

describe('annotations past GraphQL’s first page', () => {
  it('control: 49 warnings then the lost-communication annotation fit on one page: infra, re-run', async () => {
    const { line, annotationReads } = await decide([...warnings(ANNOTATIONS_PER_JOB - 1), lostAnnotation('r-1')]);
    expect(line).toMatchObject({ decision: 'retried' });
    expect(annotationReads).toBe(0);
  });

  it('50 warnings then the lost-communication failure annotation → infra (re-run)', async () => {
    const { run, line, job, annotationReads } = await decide([...warnings(ANNOTATIONS_PER_JOB), lostAnnotation('r-1')]);
    expect(job).toMatchObject({ verdict: 'infra' });
    expect(line).toMatchObject({ decision: 'retried' });
    expect(h.sim.rerunTally(run.id).accepted).toBe(1);
    expect(annotationReads).toBe(1);
  });

  it('50 warnings then an exit code beside the loss → genuine, not re-run', async () => {
    const { run, line } = await decide([...warnings(ANNOTATIONS_PER_JOB), exitAnnotation(1), lostAnnotation('r-1')]);
    expect(line).toMatchObject({ decision: 'genuine_failure' });
    expect(h.sim.rerunTally(run.id).received).toBe(0);
  });

  it('1000 annotations, the loss last: all read (10 REST pages), infra', async () => {
    const { line, annotationReads } = await decide([
      ...warnings(SCAN_LIMITS.textsPerWindow - 1),
      lostAnnotation('r-1'),
    ]);
    expect(line).toMatchObject({ decision: 'retried' });
    expect(annotationReads).toBe(10);
  });

  it('100,000 annotations → bounded requests: paging stops at the cap, the job is cut short and the run left alone', async () => {
    const { run, line, job, annotationReads, graphql } = await decide([
      ...warnings(100_000 - 1),
      lostAnnotation('r-1'),
    ]);
    // One GraphQL query, then REST pages of 100 until more than the cap of 1000 were read.
    expect(graphql).toBe(1);
    expect(annotationReads).toBe(SCAN_LIMITS.textsPerWindow / 100 + 1);
    expect(job).toMatchObject({ verdict: 'inconclusive' });
    expect(String(job?.evidence)).toMatch(/more than 1000 annotations; the rest were not read/);
    expect(line).toMatchObject({ decision: 'no_infra_evidence' });
    expect(String(line?.reason)).toMatch(/job "test": evidence not read to the end/);
    expect(h.sim.rerunTally(run.id).received).toBe(0);
  });
});
