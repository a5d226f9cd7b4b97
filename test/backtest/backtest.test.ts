import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  backtest,
  type BacktestCache,
  type BacktestDeps,
  noCache,
  STALENESS_SOURCE,
} from '../../lib/backtest/backtest.js';
import type { AttemptRecord } from '../../lib/backtest/history.js';
import type { Judgement } from '../../lib/backtest/judge.js';
import { RequestMeter } from '../../lib/backtest/requests.js';
import { RepoConfigSource } from '../../lib/github/repo-config-source.js';
import { GitHubSimulator, type SimJobSpec, type SimRun } from '../sim/index.js';
import { exitAnnotation, lostAnnotation } from '../support/evidence.js';
import { simContext } from './support.js';

/** A cache in memory, as the file cache keeps it between runs. */
class MemoryCache implements BacktestCache {
  readonly attempts = new Map<string, AttemptRecord>();
  readonly judgements = new Map<string, Judgement>();
  attempt = (k: string) => this.attempts.get(k);
  judgement = (k: string) => this.judgements.get(k);
  keep = async (k: string, v: { attempt?: AttemptRecord; judgement?: Judgement }) => {
    if (v.attempt) this.attempts.set(k, v.attempt);
    if (v.judgement) this.judgements.set(k, v.judgement);
  };
}

const INSTALLATION = 6161;
const MIN = 60_000;
type Class = 'agreed_rerun' | 'reprise_only' | 'people_only' | 'agreed_leave';

const lost = (name = 'test'): SimJobSpec => ({
  name,
  conclusion: 'failure',
  runnerName: `ghr-${name}-i-0abc123def4567890`,
  annotations: [lostAnnotation(`ghr-${name}-i-0abc123def4567890`)],
});
const genuine = (name = 'test'): SimJobSpec => ({ name, conclusion: 'failure', annotations: [exitAnnotation(1)] });
const passed = (name: string): SimJobSpec => ({ name, conclusion: 'success' });

/** A week of two repositories with one failed attempt of each class, and a green run; the class each is expected in. */
function seedWeek(
  sim: GitHubSimulator,
  now: number,
): { expected: { run: SimRun; attempt: number; class: Class }[]; runsListed: number } {
  sim.addInstallation({ id: INSTALLATION, account: 'acme' });
  const expected: { run: SimRun; attempt: number; class: Class }[] = [];
  let n = 0;
  const at = (day: number, minutes: number) => new Date(now - day * 86_400_000 + minutes * MIN).toISOString();
  const history = (repo: string, attempts: { jobs: SimJobSpec[]; afterMin?: number }[], workflowName = 'CI') => {
    const day = ++n;
    let t = 0;
    return sim.addRunHistory({
      repo,
      workflowName,
      headBranch: `topic-${day}`,
      attempts: attempts.map((a, i) => {
        t += i === 0 ? 0 : 8 + (a.afterMin ?? 0);
        return {
          jobs: a.jobs,
          ...(i > 0 && { actor: { login: 'alice', type: 'User' } }),
          startedAt: at(day, t),
          completedAt: at(day, t + 8),
        };
      }),
    });
  };
  const expect = (run: SimRun, cls: Class) => expected.push({ run, attempt: 1, class: cls });
  expect(
    history('acme/web', [{ jobs: [passed('build'), lost()] }, { jobs: [passed('test')], afterMin: 30 }]),
    'agreed_rerun',
  );
  expect(history('acme/web', [{ jobs: [passed('build'), lost()] }]), 'reprise_only');
  expect(history('acme/api', [{ jobs: [lost('integration')] }], 'Integration'), 'reprise_only');
  expect(history('acme/api', [{ jobs: [genuine('unit')] }, { jobs: [passed('unit')], afterMin: 60 }]), 'people_only');
  // Beyond the log retention: annotations and log gone.
  expect(
    history('acme/api', [
      { jobs: [{ name: 'unit', conclusion: 'failure', annotations: { status: 410 }, log: { status: 410 } }] },
    ]),
    'agreed_leave',
  );
  history('acme/web', [{ jobs: [passed('build'), passed('test')] }]);
  return { expected, runsListed: n };
}

describe('backtest over a seeded week', () => {
  let sim: GitHubSimulator;
  let month: ReturnType<typeof seedWeek>;
  const now = Date.now();
  const input = (workflows: string[] = []) => ({
    repositories: [
      { owner: 'acme', name: 'web' },
      { owner: 'acme', name: 'api' },
    ],
    sinceMs: now - 30 * 86_400_000,
    workflows,
  });
  /** The CLI's assembly: one metered fetch, the worker's client factory, the configuration as the worker loads it. */
  const deps = (over: { max?: number; cache?: BacktestCache } = {}) => {
    const meter = new RequestMeter(over.max);
    const ctx = simContext(sim, INSTALLATION, meter.fetch);
    const d: BacktestDeps = {
      clients: ctx.clients,
      installationId: INSTALLATION,
      graphqlUrl: ctx.settings.graphqlUrl,
      defaults: ctx.settings.defaults,
      configSource: new RepoConfigSource(),
      evaluation: ctx.evaluation,
      cache: over.cache ?? noCache,
      refused: () => meter.refused,
      headroom: () => meter.remaining,
    };
    return { meter, deps: d };
  };

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    month = seedWeek(sim, now);
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(() => sim.resetRequests());

  it('issue 42 point 7: the backtest says which source decided whether a run was current: the history’s listing, not the record and the delivery log of that time', async () => {
    const { deps: d } = deps();
    const r = await backtest(input(), d);
    expect(r.attempts.length).toBeGreaterThan(0);
    expect(r.notes).toContain(STALENESS_SOURCE);
    expect(STALENESS_SOURCE).toMatch(/^staleness judged from the history's listing/);
  });

  it('every failed attempt in the period is examined once, in the class the history expects, and nothing is re-run', async () => {
    const progress: [number, number][] = [];
    const { deps: d } = deps();
    const r = await backtest(input(), { ...d, progress: (done, total) => progress.push([done, total]) });
    const got = new Map(r.attempts.map((a) => [`${a.runId}@${a.attempt}`, a.class]));
    expect(got).toEqual(new Map(month.expected.map((e) => [`${e.run.id}@${e.attempt}`, e.class])));
    expect(r).toMatchObject({ repositories: 2, complete: true, runsExamined: month.runsListed - 1, planned: 7 });
    expect(r.runsListed).toBe(month.runsListed);
    expect(r.done).toBe(r.planned);
    expect(progress[0]).toEqual([0, r.planned]);
    expect(progress.at(-1)).toEqual([r.planned, r.planned]);
    expect(r.notes).toEqual([
      expect.stringMatching(/^1 attempt\(s\) judged without some job's log or annotations/),
      STALENESS_SOURCE,
    ]);
    expect(sim.requests.filter((q) => q.method === 'POST' && /rerun/.test(q.path))).toEqual([]);
  });

  it('--workflow keeps only the runs of that workflow, by name', async () => {
    const r = await backtest(input(['Integration']), deps().deps);
    expect(r.attempts.map((a) => [a.repository, a.workflow, a.class])).toEqual([
      ['acme/api', 'Integration', 'reprise_only'],
    ]);
  });

  it('a second run with the cache of the first reads no attempt, job or annotation again, and judges the same', async () => {
    const cache = new MemoryCache();
    const first = await backtest(input(), deps({ cache }).deps);
    const { meter, deps: d } = deps({ cache });
    const second = await backtest(input(), d);
    expect(second.attempts).toEqual(first.attempts);
    expect(meter.byKind()).toMatchObject({ attempts: 0, jobs: 0, annotations: 0, logs: 0 });
    expect(meter.byKind()['run listings']).toBeGreaterThan(0);
  });

  it('a request budget stops it between attempts: incomplete, fewer done than planned, and the budget never exceeded', async () => {
    const { meter, deps: d } = deps({ max: 12 });
    const r = await backtest(input(), d);
    expect(r.complete).toBe(false);
    expect(r.done).toBeLessThan(r.planned);
    expect(meter.total).toBeLessThanOrEqual(12);
    expect(r.attempts.length).toBeLessThan(month.expected.length);
  });

  it('a run GitHub no longer has is said in a note and left out; the rest is examined', async () => {
    const twice = month.expected[0]!.run;
    sim.injectFault({ path: new RegExp(`/actions/runs/${twice.id}/attempts/1$`), status: 404, times: 1 });
    try {
      const r = await backtest(input(), deps().deps);
      expect(r.notes).toContain(`acme/web run ${twice.id}: GitHub no longer has it (404); left out`);
      expect(r.attempts.some((a) => a.runId === twice.id)).toBe(false);
      expect(r.attempts).toHaveLength(month.expected.length - 1);
      expect(r.complete).toBe(true);
    } finally {
      sim.clearFaults();
    }
  });

  it("any other fault is the caller's: a listing GitHub refuses (422) is thrown", async () => {
    sim.injectFault({ path: /\/actions\/runs$/, status: 422 });
    try {
      await expect(backtest(input(), deps().deps)).rejects.toMatchObject({ status: 422 });
    } finally {
      sim.clearFaults();
    }
  });
});
