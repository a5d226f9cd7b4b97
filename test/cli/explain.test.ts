import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { explain } from '../../lib/cli/explain.js';
import type { Explanation } from '../../lib/cli/explain-run.js';
import { exitAnnotation, lostAnnotation, lostJob } from '../support/evidence.js';
import { appEnv, INSTALLATION_ID, startHarness, TABLE, type Harness } from '../support/harness.js';
import { captureIo } from './support.js';

const LOST = lostAnnotation('runner-17');
const EXIT = exitAnnotation(1);
const TOKEN = 'ghp_explain_token';

describe('reprise explain', () => {
  let h: Harness;
  const tokenEnv = () => ({ GITHUB_TOKEN: TOKEN, GITHUB_API_URL: h.sim.url, LOG_HOSTS: '127.0.0.1' });
  /** Every POST except GraphQL reads and installation tokens: re-runs, check runs, redeliveries. */
  const writes = () =>
    h.sim.requests.filter((r) => r.method === 'POST' && !/\/graphql$|\/access_tokens$/.test(r.path)).map((r) => r.path);

  beforeAll(async () => {
    h = await startHarness();
    h.sim.addToken(TOKEN);
    // The repository asks for real re-runs and check-run reports: explain must still do neither.
    h.sim.setRepoFile('acme/explain', '.github/reprise.yml', 'dry_run: false\nreport: check_run\n');
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.sim.resetRequests();
    h.sim.clearFaults();
  });

  it('success: a lost runner is explained as "would re-run" with its job table, and no POST is sent', async () => {
    const run = h.sim.addRun({
      repo: 'acme/explain',
      jobs: [{ name: 'build', conclusion: 'success' }, lostJob('test', 'runner-17')],
    });
    const io = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/explain', String(run.id)], io)).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^JOB +CONCLUSION +RUNNER +VERDICT +SOURCE +EVIDENCE$/m);
    expect(out).toMatch(/^build +success +\S+ +— +— +—$/m);
    expect(out).toMatch(/^test +failure +runner-17 +infra +annotations +pattern self-hosted-lost$/m);
    expect(out).toContain('Decision: would re-run the failed jobs');
    expect(out).toContain('Reason:   1 job(s) lost to infrastructure: test');
    expect(out).toContain('Config:   acme/explain/.github/reprise.yml');
    expect(writes()).toEqual([]);
    expect(h.sim.reruns).toHaveLength(0);
    expect(h.sim.checkRuns).toHaveLength(0);
    expect(h.sim.run(run.id).runAttempt).toBe(1);
  });

  it("the operator's ceiling holds in explain as in the worker: with REPO_EXTRA_PATTERNS=false a repository's own pattern is no evidence", async () => {
    h.sim.setRepoFile('acme/explain-ceiling', '.github/reprise.yml', 'extra_patterns:\n  - "node vanished"\n');
    const run = h.sim.addRun({
      repo: 'acme/explain-ceiling',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [{ level: 'failure', message: 'node vanished' }] }],
    });
    const allowed = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/explain-ceiling', String(run.id)], allowed)).toBe(0);
    expect(allowed.out()).toContain('Decision: would re-run the failed jobs');
    const capped = captureIo({ ...appEnv(h.sim.url), REPO_EXTRA_PATTERNS: 'false' });
    expect(await explain(['acme/explain-ceiling', String(run.id)], capped)).toBe(0);
    expect(capped.out()).not.toContain('Decision: would re-run');
    expect(capped.out()).toMatch(/^test +failure +\S+ +genuine/m);
    expect(writes()).toEqual([]);
  });

  it('a merge-group run lost to a runner: explain says the pull request would go back in the queue, and sends no mutation', async () => {
    const g = h.sim.addMergeGroupRun({
      repo: 'acme/explain',
      pullRequest: 31,
      jobs: [lostJob('test', 'runner-17')],
    });
    const io = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/explain', String(g.run.id)], io)).toBe(0);
    const out = io.out();
    expect(out).toContain('Decision: would re-run the failed jobs');
    expect(out).toContain('(the worker sends enqueuePullRequest here; explain never does)');
    expect(out).toContain(
      `Merge queue: would put pull request #31 back in the merge queue with head ${g.testedHead.slice(0, 7)}`,
    );
    expect(h.sim.enqueueRequests).toHaveLength(0);
    expect(writes()).toEqual([]);
  });

  it('success with GITHUB_TOKEN and --json: a genuine failure, its evidence, zero POSTs of any kind', async () => {
    const run = h.sim.addRun({
      repo: 'acme/explain',
      jobs: [
        { name: 'unit', conclusion: 'failure', annotations: [EXIT] },
        { name: 'e2e', conclusion: 'failure', annotations: [LOST] },
      ],
    });
    const io = captureIo(tokenEnv());
    expect(await explain([`acme/explain#${run.id}`, '--json'], io)).toBe(0);
    const x = JSON.parse(io.out()) as Explanation;
    expect(x.decision).toBe('genuine_failure');
    expect(x.wouldRerun).toBe(false);
    expect(x.reason).toContain('job "unit" failed for a real reason');
    expect(x.jobs.find((j) => j.name === 'unit')).toMatchObject({ verdict: 'genuine', source: 'annotations' });
    expect(x.jobs.find((j) => j.name === 'e2e')?.verdict).toMatch(/infra|genuine/);
    expect(h.sim.requests.filter((r) => r.method === 'POST' && r.path !== '/graphql')).toEqual([]);
    expect(h.sim.reruns).toHaveLength(0);
  });

  it('an attempt settled before any job is read (attempt cap) still shows the verdicts, marked as such', async () => {
    const run = h.sim.addRun({
      repo: 'acme/explain',
      runAttempt: 3,
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [LOST] }],
    });
    const io = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/explain', String(run.id), '--attempt', '3'], io)).toBe(0);
    expect(io.out()).toContain('Decision: attempt_cap');
    expect(io.out()).toContain('Reason:   attempt 3 reached max_attempts 3');
    expect(io.out()).toMatch(/^test +failure +\S+ +infra +annotations/m);
    expect(io.out()).toContain('(the decision was settled before any job was examined');
    expect(writes()).toEqual([]);
  });

  it('with --table: a pause of the repository shows who, why and until when, and that the worker decides paused', async () => {
    const run = h.sim.addRun({ repo: 'acme/explain-paused', jobs: [lostJob('test', 'runner-17')] });
    const pauses = h.ledger.pauses;
    await pauses.pause({ scope: 'acme/explain-paused', by: 'ops@box', reason: 'drill' });
    try {
      const io = captureIo(appEnv(h.sim.url), { dynamodb: h.dynamo.client });
      expect(await explain(['acme/explain-paused', String(run.id), '--table', TABLE], io), io.err()).toBe(0);
      expect(io.out()).toMatch(/^Paused: {3}acme\/explain-paused paused by ops@box since \S+, until resumed: drill$/m);
      expect(io.out()).toContain('but re-runs are paused: the worker decides "paused"');
      const json = captureIo(appEnv(h.sim.url), { dynamodb: h.dynamo.client });
      expect(await explain(['acme/explain-paused', String(run.id), '--table', TABLE, '--json'], json)).toBe(0);
      expect((JSON.parse(json.out()) as { pause: string }).pause).toMatch(/paused by ops@box/);
      expect(writes()).toEqual([]);
    } finally {
      await pauses.resume('acme/explain-paused');
    }
  });

  it('an exact runner signal from the table (--table) is consulted as the worker would', async () => {
    const run = h.sim.addRun({
      repo: 'acme/explain',
      jobs: [{ name: 'build', conclusion: 'cancelled', runnerName: 'gh-runner-i-0123456789abcdef0', annotations: [] }],
    });
    const completedAt = h.sim.workflowJobJson(h.sim.run(run.id).jobs[0]!.id).completed_at as string;
    await h.signals.record({
      runnerKey: 'i-0123456789abcdef0',
      kind: 'spot-interruption',
      eventTime: new Date(Date.parse(completedAt) - 60_000).toISOString(),
      eventId: 'evt-explain',
      source: 'aws.ec2',
      instanceId: 'i-0123456789abcdef0',
    });
    const without = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/explain', String(run.id)], without)).toBe(0);
    expect(without.out()).toContain('Decision: no_infra_evidence');
    const io = captureIo(appEnv(h.sim.url), { dynamodb: h.dynamo.client });
    expect(await explain(['acme/explain', String(run.id), '--table', TABLE], io)).toBe(0);
    expect(io.out()).toMatch(/^build +cancelled +gh-runner-i-0123456789abcdef0 +infra +signal/m);
    expect(io.out()).toContain('Decision: would re-run the failed jobs');
    expect(io.out()).toContain(`Signals:  read from DynamoDB table ${TABLE}`);
    expect(writes()).toEqual([]);
  });

  it("with --table: the recorded outcome of a re-run by reprise, and the installation's breaker", async () => {
    const run = h.sim.addRun({
      repo: 'acme/explain',
      onRerun: 'same',
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [LOST] }],
    });
    // reprise re-ran attempt 1; attempt 2 was lost again, as its own decision recorded.
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    await h.worker({ defaults: { textOnlyMaxAttempts: 3 } })(h.sqsEvent([h.message(run.id)]));
    h.sim.resetRequests();
    const io = captureIo(appEnv(h.sim.url), { dynamodb: h.dynamo.client });
    expect(await explain(['acme/explain', String(run.id), '--attempt', '2', '--table', TABLE], io)).toBe(0);
    expect(io.out()).toContain('Outcome:  attempt 2 was a re-run by reprise: lost_again');
    expect(io.out()).toMatch(
      /^Breaker: {2}installation: closed \(\d+ of \d+ re-run attempts lost again in \d+ repositor(y|ies) within 30 min\)$/m,
    );
    expect(writes()).toEqual([]);
  });

  it("with --table: the repository's breaker beside the installation's, in the order the decision reads them; one repository's pause shows on its own line", async () => {
    const repo = 'acme/explain-breaker';
    const run = h.sim.addRun({
      repo,
      onRerun: 'same',
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [LOST] }],
    });
    // reprise re-ran attempt 1; attempt 2 was lost again: this repository's only outcome.
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    await h.worker({ defaults: { textOnlyMaxAttempts: 3 } })(h.sqsEvent([h.message(run.id)]));
    // A breaker that judges one outcome; the installation's would need losses in 100 repositories.
    const strict = {
      minOutcomes: 1,
      lostShare: 0.5,
      windowMs: 30 * 60_000,
      coolDownMs: 30 * 60_000,
      minRepositories: 100,
    };
    const repository = { id: h.sim.repoId(repo), name: repo };
    const held = await h.ledger.outcomes(strict).state(INSTALLATION_ID, repository);
    expect(held).toMatchObject({ tripped: true, scope: { kind: 'repository', name: repo } });

    h.sim.resetRequests();
    const io = captureIo(appEnv(h.sim.url), { dynamodb: h.dynamo.client });
    expect(await explain([repo, String(run.id), '--attempt', '2', '--table', TABLE], io)).toBe(0);
    const breakers = io
      .out()
      .split('\n')
      .filter((l) => l.startsWith('Breaker:'));
    expect(breakers).toHaveLength(2);
    expect(breakers[0]).toMatch(/^Breaker: {2}installation: closed \(\d+ of \d+ re-run attempts lost again/);
    expect(breakers[1]).toMatch(
      new RegExp(
        `^Breaker: {2}${repo}: open until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: automatic re-runs of this repository pause \\(1 of 1 re-run attempts lost again within 30 min\\)$`,
      ),
    );
    const json = captureIo(appEnv(h.sim.url), { dynamodb: h.dynamo.client });
    expect(await explain([repo, String(run.id), '--attempt', '2', '--table', TABLE, '--json'], json)).toBe(0);
    const x = JSON.parse(json.out()) as Explanation;
    expect(x.breaker).toMatch(/^closed /);
    expect(x.repositoryBreaker).toMatch(/^open until .*automatic re-runs of this repository pause/);
    expect(writes()).toEqual([]);
  });

  it('with --table: the outcome of each re-run attempt of the run, one line per attempt', async () => {
    const run = h.sim.addRun({
      repo: 'acme/explain',
      onRerun: 'same',
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [LOST] }],
    });
    // Attempt 1 re-run, attempt 2 lost again and re-run, attempt 3 lost again.
    const worker = h.worker({ defaults: { maxAttempts: 5, textOnlyMaxAttempts: 5 } });
    await worker(h.sqsEvent([h.message(run.id)]));
    await worker(h.sqsEvent([h.message(run.id)]));
    await worker(h.sqsEvent([h.message(run.id)]));
    expect(h.sim.run(run.id).runAttempt).toBe(4);
    const io = captureIo(appEnv(h.sim.url), { dynamodb: h.dynamo.client });
    expect(await explain(['acme/explain', String(run.id), '--attempt', '1', '--table', TABLE, '--json'], io)).toBe(0);
    const x = JSON.parse(io.out()) as Explanation;
    expect(x.outcomes).toEqual([
      'attempt 2 was a re-run by reprise: lost_again (its re-run)',
      'attempt 3 was a re-run by reprise: lost_again',
    ]);
  });

  it('unknown run: exit 1 with the URL tried', async () => {
    const io = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/explain', '999999'], io)).toBe(1);
    expect(io.err()).toContain(
      `reprise explain: run 999999 of acme/explain not found: GET ${h.sim.url}/repos/acme/explain/actions/runs/999999 answered 404`,
    );
  });

  it('a repository the App is not installed on: exit 1 with the URL tried', async () => {
    const io = captureIo(appEnv(h.sim.url));
    expect(await explain(['umbrella-corp/app', '1'], io)).toBe(1);
    expect(io.err()).toContain(
      `the App is not installed on umbrella-corp/app (GET ${h.sim.url}/repos/umbrella-corp/app/installation answered 404)`,
    );
  });

  it('bad credentials: an unknown token is one clear message, exit 1', async () => {
    const run = h.sim.addRun({ repo: 'acme/explain', jobs: [{ name: 'x', conclusion: 'failure' }] });
    const io = captureIo({ ...tokenEnv(), GITHUB_TOKEN: 'ghp_revoked' });
    expect(await explain(['acme/explain', String(run.id)], io)).toBe(1);
    expect(io.err()).toContain(
      `GitHub refused the credentials (401 Bad credentials) for GET ${h.sim.url}/repos/acme/explain/actions/runs/${run.id}`,
    );
  });

  it.each([
    [['acme/explain'], 'expected <owner>/<repo> <run_id>'],
    [['acme', '12'], 'expected owner/repo, got "acme"'],
    [['acme/explain', 'abc'], 'expected a run id, got "abc"'],
    [['acme/explain', '12', '--attempt', '0'], 'expected an attempt ≥ 1'],
  ])('bad usage %j → exit 2: %s', async (argv, message) => {
    const io = captureIo(tokenEnv());
    expect(await explain(argv, io)).toBe(2);
    expect(io.err()).toContain(message);
  });
});
