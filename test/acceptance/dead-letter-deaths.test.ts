/**
 * A death is a receive, not a verdict. `npm start --data-dir D` (the compiled runtime, black box)
 * is given a run whose message kills the process every time it is decided (the test-only fault
 * REPRISE_TEST_KILL_WORKER_ON_RUN, read only under NODE_ENV=test), and is started again after
 * each death, as a supervisor would. Each death counts as one receive of the message: it goes
 * to the dead-letter queue after MAX_RECEIVE_COUNT of them (as SQS's redrive policy does
 * deployed), and only then is its attempt recorded `abandoned`, with the reason, and counted by
 * `reprise report`. `reprise replay --dead-letters` redrives it, and it is re-run once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { replay } from '../../lib/cli/replay.js';
import { report } from '../../lib/cli/report.js';
import { SETTINGS } from '../../lib/config/settings-schema.js';
import { KILL_WORKER_ON_RUN } from '../../lib/local/test-faults.js';
import { captureIo } from '../cli/support.js';
import { GitHubSimulator } from '../sim/index.js';
import { drained, killedRuntimeEnv, restartable, restartSweep, until } from '../support/restartable.js';
import { signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { planWave, WAVE_INSTALLATION } from '../support/wave.js';

const SECRET = 'dead-letter-secret';
const MAX_RECEIVE_COUNT = SETTINGS.maxReceiveCount.default;

describe('a message that kills its worker every time it is decided', () => {
  const runtime = restartable('reprise-dead-letter-');
  const dir = runtime.dir;
  let sim: GitHubSimulator;
  afterAll(async () => {
    await runtime.close();
    await sim?.close();
  });

  it(`ends in the dead-letter queue after MAX_RECEIVE_COUNT (${MAX_RECEIVE_COUNT}) deaths, abandoned only then with its reason and counted by reprise report, and reprise replay --dead-letters redrives it to one re-run`, async () => {
    sim = await GitHubSimulator.start();
    const [healthy, poison] = planWave(sim, 2, 'deadly');
    const env = killedRuntimeEnv(sim.url, SECRET);
    const deadly = { ...env, NODE_ENV: 'test', [KILL_WORKER_ON_RUN]: String(poison) };
    const start = runtime.start;
    const deliver = async (url: string, runId: number) => {
      const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, runId, WAVE_INSTALLATION));
      const res = await fetch(`${url}/webhook`, { method: 'POST', headers: d.headers, body: d.body });
      expect(res.status).toBe(202);
    };

    // A run of its own is decided as usual by a runtime that carries the fault.
    let { rt, url } = await start(deadly);
    await deliver(url, healthy!);
    await until('the healthy run re-run', () => sim.rerunTally(healthy!).accepted === 1, 60_000);

    await deliver(url, poison!);
    let deaths = 0;
    for (;;) {
      const died = await Promise.race([rt.exited.then(() => true), until('', () => false, 60_000).catch(() => false)]);
      expect(died, `death ${deaths + 1} of the poison run`).toBe(true);
      expect(rt.child.signalCode ?? rt.child.exitCode).not.toBe(0);
      deaths++;
      ({ rt, url } = await start(deadly));
      const restart = restartSweep(rt);
      // The sweep released the dead process's claim at once, every time; no sweep abandons it.
      expect(restart?.claims).toMatchObject({ released: 1, failed: 0 });
      expect(restart?.queue).toMatchObject({ released: 1, deadLetters: 0 });
      if (deaths === MAX_RECEIVE_COUNT) break;
      // Still undecided: nothing abandoned before the count.
      expect(rt.lines.filter((l) => l.decision === 'abandoned')).toEqual([]);
    }
    await until(
      'the dead-lettered attempt recorded abandoned',
      () => rt.lines.some((l) => l.message === 'decision' && l.decision === 'abandoned'),
      60_000,
    );
    const abandoned = rt.lines.find((l) => l.message === 'decision' && l.decision === 'abandoned')!;
    expect(abandoned.run_id).toBe(poison);
    expect(String(abandoned.reason)).toMatch(
      new RegExp(
        `^abandoned: dead-lettered after ${MAX_RECEIVE_COUNT} receives without a decision .*reprise replay --dead-letters`,
      ),
    );
    const health = (await (await fetch(`${url}/healthz`)).json()) as { queue: { deadLetters: number } };
    expect(health.queue.deadLetters).toBe(1);
    expect(sim.rerunTally(poison!).received).toBe(0);
    expect(sim.rerunTally(healthy!)).toMatchObject({ received: 1, accepted: 1 });

    // The fault fixed (a runtime without it), the dead letter is counted and redriven.
    await rt.kill('SIGTERM');
    const fixed = await start(env);
    ({ rt, url } = fixed);
    const admin = fixed.admin;
    expect(restartSweep(rt)).toMatchObject({ queue: { deadLetters: 1 } });
    const counted = captureIo({});
    expect(await report(['--local', admin, '--data-dir', dir, '--since', '1h', '--json'], counted), counted.err()).toBe(
      0,
    );
    expect((JSON.parse(counted.out()) as { decisions: { deadLettered: number } }).decisions.deadLettered).toBe(1);

    const io = captureIo({});
    expect(await replay(['--dead-letters', '--local', admin, '--data-dir', dir, '--json'], io), io.err()).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ redriven: 1, released: 1 });
    await until('the redriven run re-run', () => sim.rerunTally(poison!).accepted === 1, 60_000);
    await drained(url);
    expect(sim.rerunTally(poison!)).toMatchObject({ received: 1, accepted: 1 });
    expect(sim.rerunTally(healthy!)).toMatchObject({ received: 1, accepted: 1 });
    await rt.kill('SIGTERM');
  }, 240_000);
});
