/**
 * A run's turn on the wall clock, through the compiled runtime as `npm start` runs it: a run
 * that waits comes back at its turn whatever else is in its FIFO group, and below its limit an
 * installation waits for nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { type CompiledRuntime, startCompiledRuntime } from '../support/compiled-runtime.js';
import { awaitReruns, deliverWave } from '../support/wave-realtime.js';
import { planWave, rateLimitedByRun } from '../support/wave.js';

const started: { sim: GitHubSimulator; rt: CompiledRuntime }[] = [];
afterAll(async () => {
  for (const { sim, rt } of started) {
    await rt.stop();
    await sim.close();
  }
});

async function start(env: Record<string, string>, sim: GitHubSimulator): Promise<CompiledRuntime> {
  const rt = await startCompiledRuntime(sim, env);
  started.push({ sim, rt });
  return rt;
}

/** Resolves with the time the simulator received the run's first re-run POST. */
async function rerunReceived(sim: GitHubSimulator, runId: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = sim.rerunRequests.find((r) => r.runId === runId);
    if (got) return got.at;
    if (Date.now() > deadline) throw new Error(`run ${runId}: no re-run POST within ${timeoutMs} ms`);
    await sleep(10);
  }
}

describe.concurrent('a run that waits for its turn, on the wall clock (compiled runtime, real HTTP)', () => {
  it('one run, two copies under two GUIDs in one batch, the first waits 5 s for its turn: re-run once, within 8 s', async () => {
    const sim = await GitHubSimulator.start();
    // A spacing of 5 s between an installation's POSTs puts the second run's turn 5 s away.
    const rt = await start({ PACE_PER_MINUTE: '80', PACE_PER_HOUR: '0', WRITE_SPACING_MS: '5000' }, sim);
    const [first, second] = planWave(sim, 2, 'pair', 9601);
    expect(await rt.deliver(sim, first!, 9601, 'pair-first')).toBe(202);
    const firstAt = await rerunReceived(sim, first!, 30_000);

    const postedAt = Date.now();
    const answers = await Promise.all([
      rt.deliver(sim, second!, 9601, 'pair-second-a'),
      rt.deliver(sim, second!, 9601, 'pair-second-b'),
    ]);
    expect(answers).toEqual([202, 202]);
    const secondAt = await rerunReceived(sim, second!, 30_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${rt.tail()}`);
    });
    // It did wait for its turn (the spacing), and came back at it, not at the visibility timeout.
    expect(secondAt - firstAt).toBeGreaterThanOrEqual(4_900);
    expect(secondAt - postedAt).toBeLessThanOrEqual(8_000);
    await sleep(2_000);
    expect(sim.rerunTally(second!)).toMatchObject({ received: 1, accepted: 1 });
  }, 90_000);

  it('20 runs of one installation posted one after another, 100 ms a request: webhook → re-run p50 ≤ 4 round trips', async () => {
    const LATENCY = 100;
    const sim = await GitHubSimulator.start({ latencyMs: LATENCY });
    // The deployed defaults: 80 a minute, 500 an hour, 350 ms between an installation's POSTs.
    const rt = await start({}, sim);
    const runIds = planWave(sim, 21, 'serial', 9602, 1);
    // The first run pays for the installation token and the repository file: not part of the stream.
    await rt.deliver(sim, runIds[0]!, 9602, 'serial-warm');
    await rerunReceived(sim, runIds[0]!, 30_000);
    const roundTrips: number[] = [];
    for (const [n, id] of runIds.slice(1).entries()) {
      const posted = Date.now();
      expect(await rt.deliver(sim, id, 9602, `serial-${n}`)).toBe(202);
      roundTrips.push(((await rerunReceived(sim, id, 30_000)) - posted) / LATENCY);
    }
    const sorted = [...roundTrips].sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length / 2)]!;
    console.log(`[reliability] serial stream: webhook → re-run p50 ${p50.toFixed(1)} round trips of ${LATENCY} ms`);
    expect(p50).toBeLessThanOrEqual(4);
    expect(runIds.every((id) => sim.rerunTally(id).received === 1)).toBe(true);
  }, 120_000);

  it('60 runs of one installation, each in its own repository, each delivered twice, at the deployed pace: every run re-run once at ≤ 4 rate-limited requests, the listing at its turn a free 304', async () => {
    const RUNS = 60;
    const sim = await GitHubSimulator.start({ latencyMs: 20 });
    // The deployed defaults: 80 a minute, 500 an hour, 350 ms between an installation's POSTs.
    const rt = await start({}, sim);
    const runIds = planWave(sim, RUNS, 'own-repos', 9603, RUNS);
    const statuses = await deliverWave(rt, sim, [{ installation: 9603, runIds }], 2);
    expect(statuses.every((s) => s === 202)).toBe(true);
    await awaitReruns(sim, runIds, 90_000);
    const counted = rateLimitedByRun(sim, runIds);
    const perRun = [...counted.perRun.values()];
    const relisted = sim.requests.filter((r) => r.method === 'GET' && /\/actions\/runs\/\d+\/jobs$/.test(r.path));
    console.log(
      `[reliability] own repositories, deployed pace: rate-limited a run max ${Math.max(...perRun)}, ` +
        `${counted.notModified} answered 304, ${relisted.length} job listings for ${RUNS} runs`,
    );
    expect(runIds.every((id) => sim.rerunTally(id).received === 1)).toBe(true);
    // Most runs waited for their turn and listed their jobs again; every such listing was a 304.
    const again = relisted.length - RUNS;
    expect(again).toBeGreaterThan(RUNS / 2);
    expect(relisted.filter((r) => r.status === 304)).toHaveLength(again);
    expect(Math.max(...perRun)).toBeLessThanOrEqual(4);
    expect(counted.shared).toBeLessThanOrEqual(1);
  }, 150_000);
});
