import { describe, expect, it } from 'vitest';
import {
  ANNOTATIONS_PER_JOB,
  annotationsByGraphql,
  annotationsByRest,
  annotationsQuery,
} from '../../lib/github/annotations.js';
import type { JobFacts } from '../../lib/model.js';
import type { SimJobSpec } from '../sim/index.js';
import { exitAnnotation, lostAnnotation } from '../support/evidence.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

let gh: SimRepo;
simRepoForTests((r) => (gh = r));

const calls = () => gh.requests();

/** The run's jobs as the listing gives them (ids and node ids the simulator made). */
async function jobsOf(specs: SimJobSpec[]): Promise<JobFacts[]> {
  const run = gh.sim.addRun({ repo: gh.repo, jobs: specs });
  return gh.api().listAttemptJobs(run.id, 1);
}

const warnings = (n: number) => Array.from({ length: n }, (_, i) => ({ level: 'warning' as const, message: `w${i}` }));

describe('annotationsQuery', () => {
  it('asks for one aliased nodes field per batch and at most ANNOTATIONS_PER_JOB annotations a job', () => {
    const q = annotationsQuery(3);
    expect(q).toContain('query($ids0: [ID!]!, $ids1: [ID!]!, $ids2: [ID!]!)');
    expect(q.match(/: nodes\(ids: \$ids\d\)/g)).toHaveLength(3);
    expect(q).toContain(`annotations(first: ${ANNOTATIONS_PER_JOB})`);
  });
});

describe('annotationsByGraphql (simulator)', () => {
  it("each job's annotations, its level lower case, from one query", async () => {
    const jobs = await jobsOf([
      { name: 'a', conclusion: 'failure', annotations: [lostAnnotation('r-1')] },
      {
        name: 'b',
        conclusion: 'failure',
        annotations: [exitAnnotation(2), { level: 'warning', title: 'T', message: 'm' }],
      },
      { name: 'c', conclusion: 'failure', annotations: [] },
    ]);
    gh.sim.resetRequests();
    const map = await annotationsByGraphql(calls(), jobs);
    expect(gh.sim.count('POST', /graphql$/)).toBe(1);
    const byName = (n: string) => map.get(jobs.find((j) => j.name === n)!.id);
    expect(byName('a')).toEqual([{ level: 'failure', title: '', message: lostAnnotation('r-1').message }]);
    expect(byName('b')).toEqual([
      { level: 'failure', title: '', message: exitAnnotation(2).message },
      { level: 'warning', title: 'T', message: 'm' },
    ]);
    expect(byName('c')).toEqual([]);
  });

  it('a job with more annotations than one page is left out, for REST to read in full', async () => {
    const jobs = await jobsOf([
      { name: 'many', conclusion: 'failure', annotations: [...warnings(ANNOTATIONS_PER_JOB), lostAnnotation()] },
      { name: 'few', conclusion: 'failure', annotations: warnings(ANNOTATIONS_PER_JOB) },
    ]);
    const map = await annotationsByGraphql(calls(), jobs);
    expect(map.has(jobs.find((j) => j.name === 'many')!.id)).toBe(false);
    expect(map.get(jobs.find((j) => j.name === 'few')!.id)).toHaveLength(ANNOTATIONS_PER_JOB);
  });

  it('no jobs: no query', async () => {
    expect((await annotationsByGraphql(calls(), [])).size).toBe(0);
    expect(gh.sim.count('POST', /graphql$/)).toBe(0);
  });
});

describe('annotationsByRest (simulator)', () => {
  it("a job's annotations across pages, every one read", async () => {
    const [job] = await jobsOf([
      { name: 'a', conclusion: 'failure', annotations: [...warnings(150), lostAnnotation()] },
    ]);
    gh.sim.resetRequests();
    const read = await annotationsByRest(calls(), job!.id, 1000);
    expect(Array.isArray(read) && read.length).toBe(151);
    expect(Array.isArray(read) && read.at(-1)).toEqual({
      level: 'failure',
      title: '',
      message: lostAnnotation().message,
    });
    expect(gh.sim.count('GET', /\/annotations/)).toBe(2);
  });

  it('more than the cap is cut short, after cap / 100 + 1 pages', async () => {
    const [job] = await jobsOf([{ name: 'a', conclusion: 'failure', annotations: warnings(450) }]);
    gh.sim.resetRequests();
    expect(await annotationsByRest(calls(), job!.id, 200)).toEqual({ tooMany: 200 });
    expect(gh.sim.count('GET', /\/annotations/)).toBe(3);
  });

  it.each([403, 404, 410] as const)('%i: unavailable, not a fault', async (status) => {
    const [job] = await jobsOf([{ name: 'a', conclusion: 'failure', annotations: { status } }]);
    expect(await annotationsByRest(calls(), job!.id, 100)).toEqual({ unavailable: status });
  });

  it('a 5xx is a fault: thrown', async () => {
    const [job] = await jobsOf([{ name: 'a', conclusion: 'failure', annotations: [] }]);
    gh.sim.injectFault({ method: 'GET', path: /\/annotations/, status: 500, times: 10 });
    await expect(annotationsByRest(calls(), job!.id, 100)).rejects.toMatchObject({ status: 500 });
  });
});
