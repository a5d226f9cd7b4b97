import { describe, expect, it } from 'vitest';
import type { AnnotationEvidence, LogEvidence } from '../../lib/classify/classify-job.js';
import { RateLimitedError } from '../../lib/errors.js';
import type { JobFacts, RunnerSignal } from '../../lib/model.js';
import { type EvidenceSources, gatherVerdicts, JOB_CONCURRENCY } from '../../lib/worker/gather-verdicts.js';
import { ann, failedJob, signal } from '../support/fixtures.js';
import { TEXT } from '../support/evidence.js';
import { fakeRepoApi } from '../support/fakes/context.js';
import { MemoryLog } from '../support/memory-log.js';

const LOST = [ann(TEXT.selfHostedNamed())];
const EXIT = [ann(TEXT.exitCode(1))];

function sources(api: EvidenceSources['api'], over: Partial<EvidenceSources> = {}) {
  const log = new MemoryLog();
  const src: EvidenceSources = {
    api,
    signalWindow: { beforeMs: 300_000, afterMs: 120_000 },
    extraPatterns: [],
    logHosts: [],
    logWindowBytes: 1024,
    log,
    ...over,
  };
  return { src, log };
}

const byGraphql = (answers: Map<number, AnnotationEvidence>) => async () => answers;

describe('gathering the verdicts as cheaply as they allow', () => {
  it('annotations from one GraphQL query settle every job: no REST read, no log read', async () => {
    const a = failedJob();
    const b = failedJob();
    const api = fakeRepoApi({
      annotationsByGraphql: byGraphql(
        new Map([
          [a.id, LOST],
          [b.id, LOST],
        ]),
      ),
    });
    const g = await gatherVerdicts([a, b], sources(api).src);
    expect(g.verdicts.map((v) => [v.job.id, v.verdict, v.source])).toEqual([
      [a.id, 'infra', 'annotations'],
      [b.id, 'infra', 'annotations'],
    ]);
    expect(g).toMatchObject({ unexamined: 0, signalLookupFailed: false });
    expect(api.readsSent).toEqual(['annotationsByGraphql']);
  });

  it('a job the GraphQL answer misses is read over REST', async () => {
    const a = failedJob();
    const missed = failedJob();
    const api = fakeRepoApi({
      annotationsByGraphql: byGraphql(new Map([[a.id, LOST]])),
      annotationsByRest: async (id: number) => (id === missed.id ? LOST : []),
    });
    const g = await gatherVerdicts([a, missed], sources(api).src);
    expect(g.verdicts.map((v) => v.verdict)).toEqual(['infra', 'infra']);
    expect(api.readsSent).toEqual(['annotationsByGraphql', 'annotationsByRest']);
  });

  it('a GraphQL query that fails is logged, and every job is read over REST', async () => {
    const jobs = [failedJob(), failedJob()];
    const api = fakeRepoApi({
      annotationsByGraphql: async () => {
        throw new Error('502 Bad Gateway');
      },
      annotationsByRest: async () => LOST,
    });
    const { src, log } = sources(api);
    const g = await gatherVerdicts(jobs, src);
    expect(g.verdicts).toHaveLength(2);
    expect(log.named('GraphQL annotations failed; reading them over REST')).toEqual([
      expect.objectContaining({ error: '502 Bad Gateway' }),
    ]);
    expect(api.readsSent.filter((r) => r === 'annotationsByRest')).toHaveLength(2);
  });

  it('a rate limit on the GraphQL query is thrown: REST shares the limit, so the message waits instead', async () => {
    const api = fakeRepoApi({
      annotationsByGraphql: async () => {
        throw new RateLimitedError(60_000);
      },
    });
    await expect(gatherVerdicts([failedJob()], sources(api).src)).rejects.toBeInstanceOf(RateLimitedError);
    expect(api.readsSent).toEqual(['annotationsByGraphql']);
  });

  it('a job its annotations cannot settle has its log read, and the log decides it', async () => {
    const quiet = failedJob();
    const logs: Record<number, LogEvidence> = { [quiet.id]: { errors: [TEXT.selfHostedNamed()] } };
    const api = fakeRepoApi({
      annotationsByGraphql: byGraphql(new Map([[quiet.id, []]])),
      jobLog: async (id: number) => logs[id]!,
    });
    const g = await gatherVerdicts([quiet], sources(api).src);
    expect(g.verdicts).toEqual([expect.objectContaining({ verdict: 'infra', source: 'annotations+logs' })]);
    expect(api.readsSent).toEqual(['annotationsByGraphql', 'jobLog']);
  });

  it('once a job is genuine, the jobs not yet read are left unexamined and counted', async () => {
    const genuine = failedJob();
    const rest = Array.from({ length: 3 * JOB_CONCURRENCY }, () => failedJob());
    const api = fakeRepoApi({
      annotationsByGraphql: byGraphql(new Map()),
      annotationsByRest: async (id: number) => (id === genuine.id ? EXIT : LOST),
    });
    const g = await gatherVerdicts([genuine, ...rest], sources(api).src);
    expect(g.verdicts.find((v) => v.job.id === genuine.id)?.verdict).toBe('genuine');
    expect(g.unexamined).toBeGreaterThan(0);
    expect(g.verdicts.length + g.unexamined).toBe(1 + rest.length);
    expect(api.readsSent.filter((r) => r === 'annotationsByRest')).toHaveLength(g.verdicts.length);
  });

  it('an exact signal for the runner settles its job as infra, looked up with the job’s owner and runner group', async () => {
    const job = failedJob({ runnerName: 'runner-i-0abc1234def567890', runnerGroupName: 'gpu' });
    const asked: unknown[] = [];
    const signals = {
      forRunner: async (...args: unknown[]): Promise<RunnerSignal[]> => {
        asked.push(args);
        return [signal('spot-interruption')];
      },
    };
    const api = fakeRepoApi({ annotationsByGraphql: byGraphql(new Map([[job.id, []]])) });
    const owner = { login: 'acme', installationId: 42 };
    const g = await gatherVerdicts([job], sources(api, { signals, owner }).src);
    expect(g.verdicts).toEqual([expect.objectContaining({ verdict: 'infra', source: 'signal' })]);
    expect(asked).toEqual([
      [job.runnerName, job.completedAt, expect.anything(), { login: 'acme', installationId: 42, runnerGroup: 'gpu' }],
    ]);
  });

  it('a signal lookup that fails is logged and said, and the job is decided on its text evidence', async () => {
    const job = failedJob();
    const signals = {
      forRunner: async (): Promise<RunnerSignal[]> => {
        throw new Error('table unreachable');
      },
    };
    const api = fakeRepoApi({ annotationsByGraphql: byGraphql(new Map([[job.id, LOST]])) });
    const { src, log } = sources(api, { signals });
    const g = await gatherVerdicts([job] as JobFacts[], src);
    expect(g.signalLookupFailed).toBe(true);
    expect(g.verdicts).toEqual([expect.objectContaining({ verdict: 'infra', source: 'annotations' })]);
    expect(log.named('signal lookup failed; deciding on text evidence')).toEqual([
      expect.objectContaining({ job_id: job.id, error: 'table unreachable' }),
    ]);
  });
});
