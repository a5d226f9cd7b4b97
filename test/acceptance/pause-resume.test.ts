/**
 * The operator's off switch, black box: `npm start --data-dir D` (the compiled runtime) and the
 * GitHub simulator; `reprise pause` and `reprise resume` against its operator port, as an
 * operator runs them. Counted from what GitHub received: a paused run gets no POST, a resumed
 * owner's next lost run is re-run, a pause of one repository leaves its neighbour re-run, and
 * `reprise replay` sends the paused run again after the resume, re-run once; a pause `--for` a while ends by itself.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { pause, resume } from '../../lib/cli/pause.js';
import { replay } from '../../lib/cli/replay.js';
import { captureIo } from '../cli/support.js';
import { GitHubSimulator } from '../sim/index.js';
import { TEXT } from '../support/evidence.js';
import { appEnv } from '../support/harness.js';
import { drained, killedRuntimeEnv, restartable, until } from '../support/restartable.js';
import { signedDelivery, workflowRunPayload } from '../support/webhooks.js';

const SECRET = 'pause-resume-secret';
/** Waits until the wall clock has passed `ms` (epoch). */
const pastWallClock = async (ms: number): Promise<void> => {
  while (Date.now() < ms) await new Promise((r) => setTimeout(r, 100));
};
const INSTALLATION = 9710;

describe('pause and resume, on the next decision, with no redeploy', () => {
  const runtime = restartable('reprise-pause-');
  let sim: GitHubSimulator;
  afterAll(async () => {
    await runtime.close();
    await sim?.close();
  });

  it('reprise pause octo-org: a lost run decided paused with 0 POSTs; reprise resume: the next lost run re-run; a paused repository leaves another re-run; reprise replay re-sends the paused run after the resume, re-run once; --for ends by itself', async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: INSTALLATION, account: 'octo-org' });
    let n = 0;
    const lostRun = (repo: string): number =>
      sim.addRun({
        repo: `octo-org/${repo}`,
        headBranch: `lost-${++n}`,
        jobs: [
          { name: 'build', conclusion: 'success' },
          {
            name: 'test',
            conclusion: 'failure',
            runnerName: `spot-${n}`,
            annotations: [{ level: 'failure', message: TEXT.selfHostedEmptyName }],
          },
        ],
      }).id;
    const { url, admin } = await runtime.start(killedRuntimeEnv(sim.url, SECRET));
    const rt = runtime.started.at(-1)!;
    const dir = runtime.dir;
    const cli = async (
      command: typeof pause,
      args: string[],
      env: Record<string, string> = {},
    ): Promise<{ out: string; err: string }> => {
      const io = captureIo(env);
      const code = await command([...args, '--local', admin, '--data-dir', dir], io);
      expect(code, io.err()).toBe(0);
      return { out: io.out(), err: io.err() };
    };
    const deliver = async (runId: number) => {
      const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, runId, INSTALLATION));
      const res = await fetch(`${url}/webhook`, { method: 'POST', headers: d.headers, body: d.body });
      expect(res.status).toBe(202);
    };
    const decisionOf = (runId: number) =>
      rt.lines.filter((l) => l.message === 'decision' && l.run_id === runId).map((l) => l.decision);
    const decided = (runId: number, decision: string) =>
      until(`run ${runId} decided ${decision}`, () => decisionOf(runId).includes(decision), 60_000);
    const postsFor = (runId: number) => sim.count('POST', new RegExp(`/actions/runs/${runId}/`));

    // Paused for the owner: the lost run is decided paused, and GitHub receives no POST for it.
    const paused = await cli(pause, ['octo-org', '--reason', 'drill']);
    expect(paused.out).toMatch(/Paused in local runtime .*: octo-org paused by \S+ since \S+, until resumed: drill/);
    const first = lostRun('app');
    await deliver(first);
    await decided(first, 'paused');
    const line = rt.lines.find((l) => l.message === 'decision' && l.run_id === first)!;
    expect(String(line.reason)).toMatch(/octo-org paused by .* until resumed: drill/);
    expect(postsFor(first)).toBe(0);
    expect(sim.rerunTally(first).received).toBe(0);

    // Resumed: the next lost run of the owner is re-run; resume lists the paused run to replay.
    const resumed = await cli(resume, ['octo-org']);
    expect(resumed.out).toMatch(/Resumed in local runtime .*: octo-org paused by .*: drill/);
    expect(resumed.out).toContain(`reprise replay octo-org/app#${first}@1 --local ${admin} --data-dir ${dir}`);
    const second = lostRun('app');
    await deliver(second);
    await until('the run after the resume re-run', () => sim.rerunTally(second).accepted === 1, 60_000);

    // A pause of one repository: its lost run is paused, the neighbouring repository's re-run.
    await cli(pause, ['octo-org/app', '--reason', 'one repository', '--for', '2h']);
    const held = lostRun('app');
    const neighbour = lostRun('api');
    await deliver(held);
    await deliver(neighbour);
    await decided(held, 'paused');
    await until('the neighbouring repository re-run', () => sim.rerunTally(neighbour).accepted === 1, 60_000);
    expect(postsFor(held)).toBe(0);
    await cli(resume, ['octo-org/app']);

    // After the resume, replay sends the paused run again without --force: it is re-run once.
    const github = appEnv(sim.url);
    const sent = await cli(replay, [`octo-org/app#${first}`, '--json'], github);
    expect(JSON.parse(sent.out)).toMatchObject({ outcome: 'enqueued', released: 'paused' });
    await until('the replayed paused run re-run', () => sim.rerunTally(first).accepted === 1, 60_000);
    // Sent again, it is already decided (retried), and not re-run twice.
    const again = await cli(replay, [`octo-org/app#${first}@1`, '--json'], github);
    expect(JSON.parse(again.out)).toMatchObject({ outcome: 'already_decided', decision: 'retried' });
    // --for ends by itself: once its end has passed, the next lost run is re-run with no resume.
    const timed = await cli(pause, ['octo-org', '--reason', 'short', '--for', '2s', '--json']);
    const endsAt = Date.parse((JSON.parse(timed.out) as { pause: { until: string } }).pause.until);
    await pastWallClock(endsAt + 500);
    const afterEnd = lostRun('app');
    await deliver(afterEnd);
    await until('the run after the pause ended re-run', () => sim.rerunTally(afterEnd).accepted === 1, 60_000);

    await drained(url);
    expect(sim.rerunTally(first)).toMatchObject({ received: 1, accepted: 1 });
    expect(sim.rerunTally(second)).toMatchObject({ received: 1, accepted: 1 });
    expect(sim.rerunTally(neighbour)).toMatchObject({ received: 1, accepted: 1 });
    expect(sim.rerunTally(held).received).toBe(0);
    await rt.kill('SIGTERM');
  }, 240_000);
});
