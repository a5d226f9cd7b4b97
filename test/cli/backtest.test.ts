import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../lib/cli/main.js';
import { GitHubSimulator } from '../sim/index.js';
import { appEnv, type Harness, startHarness, TABLE } from '../support/harness.js';
import { lostAnnotation } from '../support/evidence.js';
import { seedMonth, type SeededMonth } from './backtest-history.js';
import { captureIo } from './support.js';

const BIN = resolve('lib/cli/bin.mjs');

interface JsonReport {
  notes: string[];
  complete: boolean;
  planned: number;
  done: number;
  runsListed: number;
  summary: { classes: Record<string, number>; savedDelayMs: number; wouldRerun: number };
  requests: { total: number; byKind: Record<string, number> };
  attempts: { runId: number; attempt: number; class: string; explain: string; url: string }[];
}

describe('reprise backtest', () => {
  // Each test runs the bundled command as a process, some of them several times: a loaded machine is slow to start one.
  let sim: GitHubSimulator;
  let month: SeededMonth;
  const dir = mkdtempSync(join(tmpdir(), 'reprise-backtest-'));

  /** The bundled command as a user runs it, from a directory with no .env. */
  const reprise = (args: string[]) =>
    promisify(execFile)(process.execPath, [BIN, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, ...appEnv(sim.url) },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  const graphqlReads = () => sim.requests.filter((q) => q.path === '/graphql').length;
  /** Requests to GitHub's API, the log host's reads aside. */
  const apiRequests = () => sim.requests.filter((r) => !r.path.startsWith('/_logs/'));
  const classesOf = (r: JsonReport) => new Map(r.attempts.map((a) => [`${a.runId}@${a.attempt}`, a.class]));

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    month = seedMonth(sim);
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => sim.resetRequests());

  it("acceptance: over a seeded month, every failed attempt gets its class, the saved delay is the agreed re-runs' delays, within the request budget, and nothing is POSTed but the token and GraphQL reads", async () => {
    const got = await reprise(['backtest', 'acme', '--since', '30d', '--json']);
    // With --json the GitHub host it talks to is said on stderr, and nothing else is.
    expect(got.stderr).toBe(`GitHub host: ${new URL(sim.url).host} (${sim.url})\n`);
    expect(got.code).toBe(0);
    const r = JSON.parse(got.stdout) as JsonReport;
    expect(r.complete).toBe(true);

    // Each attempt carries its run id, attempt number and class.
    const want = new Map(month.expected.map((e) => [`${e.run.id}@${e.attempt}`, e.class]));
    expect(classesOf(r)).toEqual(want);
    expect(r.summary.classes).toEqual({ agreed_rerun: 4, reprise_only: 2, people_only: 2, agreed_leave: 2 });
    expect(r.summary.savedDelayMs).toBe(month.savedDelayMs);
    expect(r.summary.savedDelayMs).toBe((42 + 18 + 10 + 30) * 60_000);
    expect(r.runsListed).toBe(month.runsListed);
    // The run past the logs' retention is judged on what is left, and the report says so.
    expect(r.notes).toContain("1 attempt(s) judged without some job's log or annotations: GitHub no longer keeps them");
    const people = r.attempts.find((a) => a.class === 'people_only')!;
    expect(people.explain).toBe(
      `reprise explain ${people.url.split('/').slice(3, 5).join('/')}#${people.runId}@${people.attempt}`,
    );

    // The budget: 3 per failed attempt + 2 per repository + 1 per 100 runs listed + 5, logs aside.
    const failed = r.attempts.length;
    const api = apiRequests().filter((q) => !/\/actions\/jobs\/\d+\/logs$/.test(q.path));
    const budget = 3 * failed + 2 * 2 + Math.ceil(r.runsListed / 100) + 5;
    expect(api.length).toBeLessThanOrEqual(budget);
    expect(r.requests.total).toBe(apiRequests().length);

    // Reads only: the installation token and GraphQL queries are the only POSTs, and no query is a mutation.
    const posts = sim.requests.filter((q) => q.method !== 'GET');
    expect(posts.filter((q) => !/\/access_tokens$|^\/graphql$/.test(q.path))).toEqual([]);
    for (const q of posts.filter((p) => p.path === '/graphql')) {
      expect(String((q.body as { query?: string }).query)).not.toMatch(/^\s*mutation/);
    }
    expect(sim.reruns).toHaveLength(0);
    expect(sim.rerunRequests).toHaveLength(0);
    expect(sim.checkRuns).toHaveLength(0);
  }, 180_000);

  it('the terminal summary: a table of classes, each disagreement with its link and the explain command, and the request costs at the end', async () => {
    const got = await reprise(['backtest', 'acme/web', '--since', '30d']);
    expect(got.code).toBe(0);
    const out = got.stdout;
    expect(out).toMatch(/^ {2}CLASS +ATTEMPTS +MEANING$/m);
    expect(out).toMatch(/^ {2}agreed_rerun +4 +reprise would re-run, people did \(3 passed\)$/m);
    expect(out).toMatch(/^ {2}reprise_only +1 /m);
    expect(out).toMatch(/^ {2}people_only +1 /m);
    const only = month.expected.find((e) => e.class === 'reprise_only' && e.run.repo === 'acme/web')!;
    expect(out).toContain(`https://github.com/acme/web/actions/runs/${only.run.id}`);
    expect(out).toContain(`reprise explain acme/web#${only.run.id}@1`);
    expect(out).toContain("People's waiting time reprise would have saved: 1.7 h over 4 re-run(s)");
    expect(out.trimEnd().split('\n').pop()).toMatch(
      /^GitHub requests: \d+ \(installation 1, token 1, run listings 2, /,
    );
  }, 180_000);

  it('--max-requests is never exceeded and stops cleanly saying how far it got; resumed with --cache, the same classes as an uninterrupted run, and no attempt read twice (only the listings again)', async () => {
    const whole = JSON.parse((await reprise(['backtest', 'acme', '--json'])).stdout) as JsonReport;
    const graphqlWhole = graphqlReads();

    const text = await reprise(['backtest', 'acme', '--max-requests', '20']);
    expect(text.stdout).toMatch(
      /^Stopped by --max-requests 20: \d+ of \d+ attempts looked at\. Run again with the same --cache FILE/m,
    );
    expect(text.stdout).toMatch(/^GitHub requests: \d+ of 20 allowed/m);

    sim.resetRequests();
    const cache = join(dir, 'resume.json');
    const cut = JSON.parse(
      (await reprise(['backtest', 'acme', '--json', '--max-requests', '20', '--cache', cache])).stdout,
    ) as JsonReport;
    expect(cut.complete).toBe(false);
    expect(cut.done).toBeLessThan(cut.planned);
    expect(cut.requests.total).toBeLessThanOrEqual(20);
    expect(apiRequests().length).toBeLessThanOrEqual(20);
    const firstReads = apiRequests().map((q) => q.path);
    const firstGraphql = graphqlReads();

    sim.resetRequests();
    const again = JSON.parse((await reprise(['backtest', 'acme', '--json', '--cache', cache])).stdout) as JsonReport;
    expect(again.complete).toBe(true);
    expect(classesOf(again)).toEqual(classesOf(whole));
    // Each attempt's record and jobs were read once over the two runs, its annotations too; the listings twice.
    const attemptReads = [...firstReads, ...apiRequests().map((q) => q.path)].filter((p) =>
      /\/attempts\/\d+(\/jobs)?$/.test(p),
    );
    expect(attemptReads.length).toBeGreaterThan(0);
    expect(new Set(attemptReads).size).toBe(attemptReads.length);
    expect(firstGraphql + graphqlReads()).toBe(graphqlWhole);
    expect(apiRequests().filter((q) => /\/actions\/runs$/.test(q.path))).toHaveLength(3);
  }, 180_000);

  it.each([
    [
      ['backtest', 'acme', '--since', 'last tuesday'],
      2,
      '--since: expected a duration (30m, 2h, 7d) or an ISO date, got "last tuesday"',
    ],
    [['backtest', 'acme', '--since', '2999-01-01'], 2, '--since: "2999-01-01" is not in the past'],
    [['backtest', 'acme', '--max-requests', '0'], 2, '--max-requests: expected a whole number ≥ 1, got "0"'],
    [['backtest', 'nobody'], 1, 'the App has no installation on "nobody" (it is installed on: acme)'],
    [['backtest', 'acme/x/y'], 2, 'expected <owner> or <owner>/<repo>, got "acme/x/y"'],
  ])(
    'bad input %j exits %i with a clear error',
    async (args, code, message) => {
      const got = await reprise(args);
      expect(got.code).toBe(code);
      expect(got.stderr).toContain(`reprise backtest: ${message}`);
    },
    180_000,
  );

  it('no credentials: a clear error, and no request is sent', async () => {
    const io = captureIo({ GITHUB_API_URL: sim.url });
    expect(await main(['backtest', 'acme'], io)).toBe(1);
    expect(io.err()).toContain('reprise backtest: GitHub credentials missing');
    expect(sim.requests).toHaveLength(0);
  });

  it('GITHUB_TOKEN reads one named repository; an owner alone asks for one', async () => {
    sim.addToken('ghp_backtest');
    const env = { GITHUB_TOKEN: 'ghp_backtest', GITHUB_API_URL: sim.url, LOG_HOSTS: '127.0.0.1' };
    const owner = captureIo(env);
    expect(await main(['backtest', 'acme'], owner)).toBe(2);
    expect(owner.err()).toContain('with GITHUB_TOKEN, name a repository (acme/<repo>)');
    const io = captureIo(env);
    expect(await main(['backtest', 'acme/api', '--json', '--workflow', 'Integration'], io)).toBe(0);
    const r = JSON.parse(io.out()) as JsonReport;
    expect(r.attempts.map((a) => a.class)).toEqual(['reprise_only']);
  });

  it('a progress bar on a terminal only: drawn on a TTY, quiet with --json and when stderr is not a TTY', async () => {
    sim.addToken('ghp_progress');
    const env = { GITHUB_TOKEN: 'ghp_progress', GITHUB_API_URL: sim.url, LOG_HOSTS: '127.0.0.1' };
    /** A captured stderr that says it is a terminal. */
    const tty = () => {
      const io = captureIo(env);
      Object.assign(io.stderr, { isTTY: true });
      return io;
    };
    const onTerminal = tty();
    expect(await main(['backtest', 'acme/web'], onTerminal)).toBe(0);
    expect(onTerminal.err()).toMatch(/\r\[#{30}\] (\d+)\/\1 attempts\n$/);
    const json = tty();
    expect(await main(['backtest', 'acme/web', '--json'], json)).toBe(0);
    expect(json.err()).toMatch(/^GitHub host: [^\n]+\n$/);
    const piped = captureIo(env);
    expect(await main(['backtest', 'acme/web'], piped)).toBe(0);
    expect(piped.err()).toBe('');
  }, 180_000);

  it('an attempt GitHub no longer has (410) is left out with a note; the others are still classed', async () => {
    sim.addToken('ghp_gone');
    const only = month.expected.find((e) => e.class === 'reprise_only' && e.run.repo === 'acme/web')!;
    sim.injectFault({ path: new RegExp(`/actions/runs/${only.run.id}/attempts/1/jobs$`), status: 410 });
    try {
      const io = captureIo({ GITHUB_TOKEN: 'ghp_gone', GITHUB_API_URL: sim.url, LOG_HOSTS: '127.0.0.1' });
      expect(await main(['backtest', 'acme/web', '--json'], io)).toBe(0);
      const r = JSON.parse(io.out()) as JsonReport;
      expect(r.notes).toContain(`acme/web run ${only.run.id} attempt 1: GitHub no longer has it (410); left out`);
      expect(r.attempts.map((a) => a.runId)).not.toContain(only.run.id);
      expect(r.summary.classes).toEqual({ agreed_rerun: 4, reprise_only: 0, people_only: 1, agreed_leave: 1 });
    } finally {
      sim.clearFaults();
    }
  });

  it('a run whose re-run is still running: the failed attempt before it is examined, the re-run unfinished', async () => {
    sim.addToken('ghp_running');
    const at = (min: number) => new Date(Date.now() - 3_600_000 + min * 60_000).toISOString();
    const run = sim.addRunHistory({
      repo: 'umbrella/running',
      attempts: [
        {
          jobs: [
            {
              name: 'test',
              conclusion: 'failure',
              runnerName: 'ghr-i-0abc',
              annotations: [lostAnnotation('ghr-i-0abc')],
            },
          ],
          startedAt: at(0),
          completedAt: at(8),
        },
        {
          jobs: [{ name: 'test', conclusion: null }],
          actor: { login: 'carol', type: 'User' },
          startedAt: at(20),
          completedAt: at(20),
        },
      ],
    });
    run.latest.status = 'in_progress';
    run.latest.conclusion = null;
    const io = captureIo({ GITHUB_TOKEN: 'ghp_running', GITHUB_API_URL: sim.url, LOG_HOSTS: '127.0.0.1' });
    expect(await main(['backtest', 'umbrella/running', '--json'], io)).toBe(0);
    const r = JSON.parse(io.out()) as JsonReport & {
      attempts: { rerun?: { by: { login: string }; conclusion: string | null; delayMs: number } }[];
    };
    expect(r.attempts.map((a) => [a.runId, a.attempt, a.class])).toEqual([[run.id, 1, 'agreed_rerun']]);
    expect(r.attempts[0]?.rerun).toMatchObject({ by: { login: 'carol' }, conclusion: null, delayMs: 12 * 60_000 });
  });
});

interface SignalsReport {
  signals: string;
  attempts: { runId: number; class: string; judgement: { decision: string; jobs: { source: string | null }[] } }[];
  summary: { evidence: { name: string; count: number }[] };
}

describe('reprise backtest with --table', () => {
  let h: Harness;
  let runId: number;

  beforeAll(async () => {
    h = await startHarness();
    const completedAt = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const startedAt = new Date(Date.parse(completedAt) - 9 * 60_000).toISOString();
    // Cancelled on a spot runner with no annotation: only the exact signal says what happened.
    runId = h.sim.addRunHistory({
      repo: 'acme/signals',
      attempts: [
        {
          jobs: [
            { name: 'build', conclusion: 'cancelled', runnerName: 'gh-runner-i-0123456789abcdef0', annotations: [] },
          ],
          startedAt,
          completedAt,
        },
      ],
    }).id;
    await h.signals.record({
      runnerKey: 'i-0123456789abcdef0',
      kind: 'spot-interruption',
      eventTime: new Date(Date.parse(completedAt) - 60_000).toISOString(),
      eventId: 'evt-backtest',
      source: 'aws.ec2',
      instanceId: 'i-0123456789abcdef0',
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('exact runner signals from the table are consulted as the worker would: a cancelled job becomes a re-run reprise would make', async () => {
    const without = captureIo(appEnv(h.sim.url));
    expect(await main(['backtest', 'acme/signals', '--json'], without)).toBe(0);
    const plain = JSON.parse(without.out()) as SignalsReport;
    expect(plain.attempts.map((a) => [a.runId, a.class, a.judgement.decision])).toEqual([
      [runId, 'agreed_leave', 'no_infra_evidence'],
    ]);

    const io = captureIo(appEnv(h.sim.url), { dynamodb: h.dynamo.client });
    expect(await main(['backtest', 'acme/signals', '--json', '--table', TABLE], io)).toBe(0);
    const r = JSON.parse(io.out()) as SignalsReport;
    expect(r.signals).toBe(`read from DynamoDB table ${TABLE}`);
    expect(r.attempts.map((a) => [a.runId, a.class])).toEqual([[runId, 'reprise_only']]);
    expect(r.attempts[0]?.judgement.jobs[0]?.source).toBe('signal');
    expect(r.summary.evidence).toEqual([{ name: 'exact signal', count: 1 }]);
  });
});
