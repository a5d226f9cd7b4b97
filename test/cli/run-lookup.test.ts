import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, UsageError } from '../../lib/cli/io.js';
import { parseRunRef, readLiveRun } from '../../lib/cli/run-lookup.js';
import { simContext } from '../backtest/support.js';
import { GitHubSimulator } from '../sim/index.js';

describe('run-lookup: a run named on the command line', () => {
  it('owner/repo run_id, owner/repo#run_id and owner/repo#run_id@attempt; --attempt when the name has none', () => {
    expect(parseRunRef(['acme/web', '12'])).toEqual({ owner: 'acme', repo: 'web', runId: 12 });
    expect(parseRunRef(['acme/web.js#12'])).toEqual({ owner: 'acme', repo: 'web.js', runId: 12 });
    expect(parseRunRef(['acme/web#12@3'])).toEqual({ owner: 'acme', repo: 'web', runId: 12, attempt: 3 });
    expect(parseRunRef(['acme/web#12'], '2')).toEqual({ owner: 'acme', repo: 'web', runId: 12, attempt: 2 });
    expect(parseRunRef(['acme/web#12@3'], '2')).toMatchObject({ attempt: 3 });
    expect(parseRunRef(['acme/web', '12'], '4')).toMatchObject({ attempt: 4 });
  });

  it('anything else is a usage error saying what was expected and what was given', () => {
    const cases: [string[], string | undefined, string][] = [
      [[], undefined, 'expected <owner>/<repo> <run_id> (or owner/repo#run_id)'],
      [['acme/web#x'], undefined, 'expected owner/repo#run_id[@attempt], got "acme/web#x"'],
      [['acme', '12'], undefined, 'expected owner/repo, got "acme"'],
      [['acme/web', '0'], undefined, 'expected a run id, got "0"'],
      [['acme/web', '1.5'], undefined, 'expected a run id, got "1.5"'],
      [['acme/web', '12'], '0', 'expected an attempt ≥ 1, got "0"'],
      [['acme/web#12@0'], undefined, 'expected an attempt ≥ 1, got "0"'],
    ];
    for (const [positionals, attempt, message] of cases) {
      expect(() => parseRunRef(positionals, attempt)).toThrow(UsageError);
      expect(() => parseRunRef(positionals, attempt)).toThrow(message);
    }
  });
});

describe('run-lookup: the live run and its message', () => {
  let sim: GitHubSimulator;
  let ctx: ReturnType<typeof simContext>;
  let twice: number;
  let cancelled: number;
  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: 8, account: 'acme' });
    ctx = simContext(sim, 8);
    twice = sim.addRunHistory({
      repo: 'acme/web',
      headBranch: 'topic',
      pullRequests: [{ number: 41 }] as never,
      attempts: [
        {
          jobs: [{ name: 'test', conclusion: 'failure' }],
          startedAt: '2026-03-01T10:00:00Z',
          completedAt: '2026-03-01T10:09:00Z',
        },
        {
          jobs: [{ name: 'test', conclusion: 'success' }],
          startedAt: '2026-03-01T10:20:00Z',
          completedAt: '2026-03-01T10:29:00Z',
        },
      ],
    }).id;
    cancelled = sim.addRun({ repo: 'acme/web', jobs: [{ name: 'test', conclusion: 'cancelled' }] }).id;
  });
  afterAll(async () => {
    await sim.close();
  });
  const read = (runId: number, attempt?: number, repo = 'web') =>
    readLiveRun(
      ctx.clients,
      { owner: 'acme', repo, runId, ...(attempt && { attempt }) },
      8,
      'reprise-explain',
      ctx.settings.graphqlUrl,
    );

  it('the latest attempt by default: its status and conclusion, and the message the intake would have built', async () => {
    const live = await read(twice);
    expect(live).toMatchObject({ status: 'completed', conclusion: 'success', latestAttempt: 2 });
    expect(live.message).toMatchObject({
      v: 1,
      deliveryId: 'reprise-explain',
      installationId: 8,
      repository: { id: sim.repoId('acme/web'), owner: 'acme', name: 'web' },
      runId: twice,
      runAttempt: 2,
      headBranch: 'topic',
      conclusion: 'failure',
    });
  });

  it('an earlier attempt named: that attempt read, the latest still known', async () => {
    const live = await read(twice, 1);
    expect(live).toMatchObject({ conclusion: 'failure', latestAttempt: 2 });
    expect(live.message.runAttempt).toBe(1);
  });

  it('a cancelled run keeps "cancelled" in its message', async () => {
    expect((await read(cancelled)).message.conclusion).toBe('cancelled');
  });

  it('an attempt past the latest, or a run GitHub does not have, is a CliError naming it', async () => {
    await expect(read(twice, 3)).rejects.toThrow(`run ${twice} of acme/web has 2 attempt(s); there is no attempt 3`);
    const missing = await read(999_999).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CliError);
    expect((missing as Error).message).toBe(
      `run 999999 of acme/web not found: GET ${sim.url}/repos/acme/web/actions/runs/999999 answered 404`,
    );
  });
});
