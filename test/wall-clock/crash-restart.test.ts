/**
 * Nothing acknowledged is lost, and a restart recovers at once. `npm start --data-dir D` (the
 * compiled runtime, black box, real HTTP) takes a 60-run spot wave of one installation, each run
 * lost to a reclaimed runner and delivered as a signed webhook; its whole process group is
 * SIGKILLed at random moments of the wave and started again on the same data dir, three times,
 * the second within 2 s of the first restart, when the runs that restart released are being
 * decided again. A death is a receive of each message in flight, not a verdict: none of them is
 * abandoned (that takes MAX_RECEIVE_COUNT deaths, dead-letter-deaths.test.ts).
 * Counted from the re-run POSTs the GitHub simulator received: every run is re-run exactly once,
 * the last within 30 s of the final restart. A delivery the killed process never answered 2xx is
 * delivered again, as GitHub's redelivery would; one it answered is never sent twice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { drained, killedRuntimeEnv, restartable, restartSweep, until } from '../support/restartable.js';
import { signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { printSummary } from '../support/faults.js';
import { planWave, WAVE_INSTALLATION } from '../support/wave.js';

const RUNS = 60;
const KILLS = 3;
const SECRET = 'crash-secret';
const RECOVERY_MS = 30_000;
/** Deliveries sent and not yet answered, at most. */
const IN_FLIGHT = 10;
/** The second kill lands this soon after the first restart listens, at most. */
const SOON_AFTER_RESTART_MS = 2_000;

/** A small seeded generator (mulberry32): the kill moments differ by seed, and a failure names its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('crash and restart of npm start --data-dir', () => {
  const runtime = restartable('reprise-crash-');
  let sim: GitHubSimulator;
  afterAll(async () => {
    await runtime.close();
    await sim?.close();
  });

  it(`SIGKILLed ${KILLS} times during a ${RUNS}-run wave, once within 2 s of a restart, and restarted on the same data dir: every run re-run exactly once, none abandoned, the last within 30 s of the final restart`, async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
    const rand = random(seed);
    // Latency spreads the decisions out, so a kill lands on work in progress.
    sim = await GitHubSimulator.start({ latencyMs: 15 });
    const runIds = planWave(sim, RUNS, 'crash');
    const env = {
      ...killedRuntimeEnv(sim.url, SECRET),
      // Two worker loops, twenty decisions at once: the wave takes long enough that every kill
      // lands while it is decided. With eight loops the whole wave is decided at once, and the
      // last kill could come after it.
      WORKER_CONCURRENCY: process.env.CRASH_LOOPS ?? '2',
    };
    let listeningAt = 0;
    const start = async () => {
      const started = await runtime.start(env);
      listeningAt = started.listeningAt;
      return started;
    };
    const deliveries = await Promise.all(
      runIds.map((id) => signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, id, WAVE_INSTALLATION))),
    );
    const acknowledged = new Set<number>();
    const rerun = () => new Set(sim.rerunRequests.map((r) => r.runId));

    /** Told of each delivery answered 2xx, from within the answer's callback. */
    let onAcknowledged: (() => void) | undefined;
    /**
     * Delivers what was never answered 2xx, one every 10 ms (the wave within a second) and at
     * most IN_FLIGHT unanswered at once, until the process dies.
     */
    const deliver = async (url: string): Promise<void> => {
      const due = deliveries.map((d, i) => ({ d, i })).filter(({ i }) => !acknowledged.has(i));
      const begun = Date.now();
      let next = 0;
      const sender = async (): Promise<void> => {
        for (let slot = next++; slot < due.length; slot = next++) {
          const { d, i } = due[slot]!;
          await new Promise((r) => setTimeout(r, begun + 10 * slot - Date.now()));
          try {
            const res = await fetch(`${url}/webhook`, { method: 'POST', headers: d.headers, body: d.body });
            if (res.status >= 200 && res.status < 300) {
              acknowledged.add(i);
              onAcknowledged?.();
            }
            await res.body?.cancel();
          } catch {
            // No answer: the process was killed. GitHub would not count this delivery as delivered.
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
    };

    const kills: Record<string, unknown>[] = [];
    const t0 = Date.now();
    let { rt, url } = await start();
    let delivering = deliver(url);
    for (let k = 1; k <= KILLS; k++) {
      if (k === 1) {
        // The first kill lands while the wave is still arriving: it is sent the moment the n-th
        // delivery is answered, when at most IN_FLIGHT - 1 others are out, so some never reach
        // the process, however loaded the machine.
        const n = 15 + Math.floor(rand() * 30);
        let signalled = false;
        onAcknowledged = () => {
          if (signalled || acknowledged.size < n) return;
          signalled = true;
          void rt.kill('SIGKILL');
        };
        await until(`${n} deliveries acknowledged`, () => signalled, 60_000, 5);
        onAcknowledged = undefined;
      } else if (k === 2) {
        // Soon after the restart, while the runs it released are decided again: once a death
        // of theirs too ended them as abandoned.
        await new Promise((r) => setTimeout(r, Math.floor(rand() * (SOON_AFTER_RESTART_MS / 2))));
      } else {
        // Later kills land after a few more re-runs, deep enough into the wave that what is
        // left after the last restart is re-run well within 30 s of it.
        const before = rerun().size;
        const more = 8 + Math.floor(rand() * 12);
        await until(`${more} more re-runs`, () => rerun().size >= Math.min(RUNS, before + more), 60_000, 5);
        await new Promise((r) => setTimeout(r, Math.floor(rand() * 40)));
      }
      const afterRestartMs = k === 1 ? undefined : Date.now() - listeningAt;
      await rt.kill('SIGKILL');
      kills.push({
        kill: k,
        at: Date.now() - t0,
        afterRestartMs,
        acknowledged: acknowledged.size,
        rerun: rerun().size,
      });
      await delivering;
      ({ rt, url } = await start());
      kills[k - 1]!.listeningAfterMs = Date.now() - rt.spawnedAt;
      const restart = restartSweep(rt);
      kills[k - 1] = { ...kills[k - 1], restored: restart?.queue, claims: restart?.claims };
      delivering = deliver(url);
    }
    const finalRestartAt = rt.spawnedAt;
    await delivering;
    expect(acknowledged.size).toBe(RUNS);

    await until(
      `every run re-run (seed ${seed}, ${rerun().size} so far; kills ${JSON.stringify(kills)})`,
      () => rerun().size >= RUNS,
      RECOVERY_MS + 15_000,
      5,
    ).catch(async (err: Error) => {
      const health = await (await fetch(`${url}/healthz`)).json();
      const counts: Record<string, number> = {};
      for (const l of rt.lines) {
        const k =
          l.message === 'decision'
            ? `decision ${String(l.decision)}: ${String(l.reason).slice(0, 80)}`
            : String(l.message);
        counts[k] = (counts[k] ?? 0) + 1;
      }
      throw new Error(`${err.message}\nqueue: ${JSON.stringify(health)}\nlog: ${JSON.stringify(counts)}`);
    });
    // Anything still queued could make a second re-run: let the queue drain first.
    await drained(url);

    const tally = runIds.map((id) => sim.rerunTally(id));
    const last = Math.max(...sim.rerunRequests.map((r) => r.at));
    printSummary('crash and restart', {
      seed,
      runs: RUNS,
      kills: JSON.stringify(kills),
      're-run POSTs': sim.rerunRequests.length,
      'last re-run after final restart ms': last - finalRestartAt,
    });
    // Every kill hit the wave in progress, the first while deliveries still arrived.
    expect(kills.every((k) => (k.rerun as number) < RUNS)).toBe(true);
    expect((kills[0]!.acknowledged as number) < RUNS).toBe(true);
    expect(kills.some((k) => typeof k.afterRestartMs === 'number' && k.afterRestartMs <= SOON_AFTER_RESTART_MS)).toBe(
      true,
    );
    // No process abandoned a run: three deaths are fewer than MAX_RECEIVE_COUNT receives.
    expect(runtime.started.flatMap((p) => p.lines).filter((l) => l.decision === 'abandoned')).toEqual([]);
    expect(runIds.map((id, i) => [id, tally[i]!.received]).filter(([, n]) => n !== 1)).toEqual([]);
    expect(tally.every((t) => t.accepted === 1)).toBe(true);
    expect(last - finalRestartAt).toBeLessThanOrEqual(RECOVERY_MS);
    await rt.kill('SIGTERM');
  }, 150_000);
});
