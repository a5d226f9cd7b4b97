import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerSignalLookup } from '../../lib/signals/runner-lookup.js';
import { explain } from '../../lib/cli/explain.js';
import { explainRun } from '../../lib/cli/explain-run.js';
import { readLiveRun } from '../../lib/cli/run-lookup.js';
import { exitAnnotation, lostJob } from '../support/evidence.js';
import { appEnv, INSTALLATION_ID, startHarness, TABLE, type Harness } from '../support/harness.js';
import { captureIo } from './support.js';

/** As spdk/spdk#3876 quotes it (test/fixtures/real-reports). */
const NOT_ACQUIRED = 'The job was not acquired by Runner of type hosted even after multiple attempts';

describe('reprise explain shows a GitHub platform failure as its own source, with platform_errors', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.sim.setRepoFile('acme/left', '.github/reprise.yml', 'platform_errors: leave\n');
  });
  afterAll(async () => {
    await h.close();
  });

  const platformRun = (repo: string) =>
    h.sim.addRun({
      repo,
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: NOT_ACQUIRED }] }],
    });

  it('platform_errors absent: the job is infra by `platform`, the run would be re-run, a note names the setting', async () => {
    const run = platformRun('acme/platform');
    const io = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/platform', String(run.id)], io)).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^build +failure +\S+ +infra +platform +platform not-acquired$/m);
    expect(out).toContain('Decision: would re-run the failed jobs');
    expect(out).toContain('(GitHub platform failure: platform not-acquired)');
    expect(out).toContain('Note: GitHub platform failure seen; platform_errors: rerun');
    expect(h.sim.rerunTally(run.id).received).toBe(0);
  });

  it('platform_errors: leave in the repository file: no_infra_evidence, its reason and note name the setting', async () => {
    const run = platformRun('acme/left');
    const io = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/left', String(run.id)], io)).toBe(0);
    const out = io.out();
    expect(out).toContain('Decision: no_infra_evidence');
    expect(out).toContain('and platform_errors is leave');
    expect(out).toContain('Note: GitHub platform failure seen; platform_errors: leave');
  });
});

describe("explainRun: the worker's evaluation of a live run, dry_run forced", () => {
  let h: Harness;
  const live = (id: number, attempt?: number) =>
    readLiveRun(
      h.client(INSTALLATION_ID),
      { owner: 'acme', repo: h.sim.run(id).repo.split('/')[1]!, runId: id, ...(attempt && { attempt }) },
      INSTALLATION_ID,
      'reprise-explain',
      h.settings.graphqlUrl,
    );
  const explained = async (id: number, over: { settings?: object; outcomes?: boolean } = {}, attempt?: number) =>
    explainRun(await live(id, attempt), {
      clients: h.client(INSTALLATION_ID),
      settings: { ...h.settings, ...over.settings },
      ...(over.outcomes && {
        outcomes: h.ledger.outcomes(h.settings.breaker),
        signals: runnerSignalLookup(h.signals),
        signalsFrom: `DynamoDB table ${TABLE}`,
      }),
    });
  const reruns = () => h.sim.requests.filter((r) => r.method === 'POST' && /rerun/.test(r.path));

  beforeAll(async () => {
    h = await startHarness();
    h.sim.setRepoFile('acme/dry', '.github/reprise.yml', 'dry_run: true\n');
  });
  afterAll(async () => {
    await h.close();
  });

  it('a lost runner: would re-run, each job on its line with its verdict, the requests counted, nothing re-run', async () => {
    const run = h.sim.addRun({
      repo: 'acme/lost',
      jobs: [{ name: 'build', conclusion: 'success' }, lostJob('test', 'runner-17')],
    });
    h.sim.resetRequests();
    const x = await explained(run.id);
    expect(x).toMatchObject({
      repository: 'acme/lost',
      runId: run.id,
      attempt: 1,
      latestAttempt: 1,
      status: 'completed',
      conclusion: 'failure',
      configOrigin: 'defaults',
      decision: 'dry_run',
      wouldRerun: true,
      verdictsDecided: true,
      signals: 'not consulted (pass --table or --stack)',
    });
    expect(x.reason).toMatch(/^would re-run: /);
    expect(x.jobs.map((j) => [j.name, j.conclusion, j.runner, j.verdict])).toEqual([
      ['build', 'success', expect.any(String), null],
      ['test', 'failure', 'runner-17', 'infra'],
    ]);
    // The evidence as data beside its text: the family and the pattern's name (what --json prints).
    expect(x.jobs[1]).toMatchObject({ family: 'runner-loss', pattern: 'self-hosted-lost', source: 'annotations' });
    expect(x.jobs[0]).toMatchObject({ family: null, pattern: null });
    expect(x.requests).toBeGreaterThan(0);
    expect(x).not.toHaveProperty('outcomes');
    expect(reruns()).toEqual([]);
  });

  it('issue 42 point 7: explain says which source decided a branch run’s currency: one listing, as it reads neither the intake’s record nor the delivery log', async () => {
    const run = h.sim.addRun({ repo: 'acme/branchy', headBranch: 'main', jobs: [lostJob('test', 'runner-19')] });
    h.sim.resetRequests();
    const x = await explained(run.id);
    expect(x.decision).toBe('dry_run');
    expect(x.staleness).toMatch(/^one listing of the branch's runs decided whether the run is current/);
    expect(h.sim.count('GET', /\/actions\/workflows\/\d+\/runs$/)).toBe(1);
    expect(h.sim.appRequests.filter((r) => r.path === '/app/hook/deliveries')).toEqual([]);
  });

  it('dry_run in the repository file: the decision is dry_run but not a re-run the worker would make', async () => {
    const run = h.sim.addRun({ repo: 'acme/dry', jobs: [lostJob('test', 'runner-18')] });
    const x = await explained(run.id);
    expect(x.decision).toBe('dry_run');
    expect(x.wouldRerun).toBe(false);
    expect(x.configOrigin).toBe('acme/dry');
  });

  it('a green run is ignored before any job is read, yet each job is shown, none a candidate', async () => {
    const run = h.sim.addRun({ repo: 'acme/green', jobs: [{ name: 'build', conclusion: 'success' }] });
    const x = await explained(run.id);
    expect(x.decision).toBe('ignored');
    expect(x.reason).toBe('the run concluded success; the intake acts only on failure or cancelled');
    expect(x.verdictsDecided).toBe(false);
    expect(x.jobs).toEqual([expect.objectContaining({ name: 'build', conclusion: 'success', verdict: null })]);
  });

  it('a repository outside the allow list: settled before the jobs are judged, their verdicts shown all the same', async () => {
    const run = h.sim.addRun({
      repo: 'acme/outside',
      jobs: [lostJob('test', 'runner-19'), { name: 'lint', conclusion: 'failure', annotations: [exitAnnotation(2)] }],
    });
    const x = await explained(run.id, { settings: { repositoryAllowList: ['acme/other'] } });
    expect(x.wouldRerun).toBe(false);
    expect(x.verdictsDecided).toBe(false);
    expect(x.jobs.map((j) => [j.name, j.verdict])).toEqual([
      ['test', 'infra'],
      ['lint', 'genuine'],
    ]);
  });

  it('with the table: the outcome of the attempt asked about, marked as this attempt, and where both breakers stand', async () => {
    const run = h.sim.addRun({ repo: 'acme/again', onRerun: 'same', jobs: [lostJob('test', 'runner-20')] });
    const worker = h.worker({ defaults: { maxAttempts: 5, textOnlyMaxAttempts: 5 } });
    await worker(h.sqsEvent([h.message(run.id)]));
    await worker(h.sqsEvent([h.message(run.id)]));
    expect(h.sim.run(run.id).runAttempt).toBe(3);
    const x = await explained(run.id, { outcomes: true }, 2);
    expect(x.outcomes).toEqual(['attempt 2 was a re-run by reprise: lost_again (this attempt)']);
    expect(x.breaker).toMatch(
      /^closed \(\d+ of \d+ re-run attempts lost again in \d+ repositor(y|ies) within \d+ min\)$/,
    );
    expect(x.signals).toBe(`read from DynamoDB table ${TABLE}`);
  });
});
