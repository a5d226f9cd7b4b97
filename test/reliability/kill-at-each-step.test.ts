import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from '../../lib/local/runtime.js';
import type { RunMessage } from '../../lib/model.js';
import type { SweepCounts } from '../../lib/reconcile/reconciler.js';
import { GitHubSimulator, type SimRun } from '../sim/index.js';
import { MemoryLog } from '../support/memory-log.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { faultRuntimeEnv, printSummary } from './faults-support.js';
import { EXIT, LOST } from './reconcile-kit.js';

const SECRET = 'kill-secret';
/** A lease in the hundreds of milliseconds keeps the suite fast; sweeps wait it out in full. */
const LEASE_MS = 800;

/** The process dying at this point: a fault no real dependency can be made to produce on cue. */
class WorkerKilled extends Error {
  override name = 'WorkerKilled';
}

const STEPS = [
  'intake, before the enqueue',
  'worker, after the claim',
  'worker, after the re-run call, before recording',
  'worker, after recording, before acknowledging',
] as const;
type Step = (typeof STEPS)[number];

/** Installations spread the runs over several write queues (re-run POSTs are spaced per installation). */
const INSTALLATIONS = [5101, 5102, 5103, 5104, 5105, 5106];
const RUNS_PER_STEP = 6;
const GENUINE_RUNS = 6;

interface Case {
  readonly run: SimRun;
  readonly installationId: number;
  readonly step: Step | 'none';
  readonly earnsRerun: boolean;
}

describe('a worker killed at each step', () => {
  let sim: GitHubSimulator;
  let rt: Runtime;
  const log = new MemoryLog();
  const kills = new Map<Step, number>();
  const cases: Case[] = [];

  const killOnce = (step: Step, runId: number, done: Set<number>): boolean => {
    const c = cases.find((x) => x.run.id === runId);
    if (c?.step !== step || done.has(runId)) return false;
    done.add(runId);
    kills.set(step, (kills.get(step) ?? 0) + 1);
    return true;
  };

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    INSTALLATIONS.forEach((id, i) => sim.addInstallation({ id, account: `fleet${i}` }));
    rt = await startRuntime({
      env: faultRuntimeEnv(sim, SECRET),
      log,
      port: 0,
      retryBaseMs: 1,
      leaseMs: LEASE_MS,
      // The runtime's visibility timeout (minutes) never ends within the suite, so no message is
      // received again while its batch is worked on; a killed batch is handed back explicitly.
      // A 10 s backoff lasts 20 ms here.
      deferUnitMs: 2,
      workerConcurrency: 4,
    });

    // The kills: each wraps the real dependency and throws once, for its runs only.
    const ledger = rt.ledger;
    const claim = ledger.claim.bind(ledger);
    const claimed = new Set<number>();
    ledger.claim = async (msg, owner, leaseMs) => {
      const result = await claim(msg, owner, leaseMs);
      if (result.claimed && killOnce('worker, after the claim', msg.runId, claimed)) throw new WorkerKilled();
      return result;
    };
    const finalise = ledger.finalise.bind(ledger);
    const finalised = new Set<number>();
    ledger.finalise = async (msg, owner, decision, reason, details) => {
      if (killOnce('worker, after the re-run call, before recording', msg.runId, finalised)) throw new WorkerKilled();
      return finalise(msg, owner, decision, reason, details);
    };
    // A worker that dies before acknowledging deletes nothing of its batch: the kill takes the whole batch.
    const queue = rt.queue;
    const receive = queue.receive.bind(queue);
    const deleteMessage = queue.delete.bind(queue);
    const batchOf = new Map<string, { runIds: number[]; handles: string[] }>();
    const acked = new Set<number>();
    queue.receive = (max) => {
      const records = receive(max);
      const batch = {
        runIds: records.map((r) => (JSON.parse(r.body) as RunMessage).runId),
        handles: records.map((r) => r.receiptHandle),
      };
      for (const r of records) batchOf.set(r.receiptHandle, batch);
      return records;
    };
    queue.delete = (handle) => {
      const batch = batchOf.get(handle);
      const killed = (batch?.runIds ?? []).filter((runId) =>
        killOnce('worker, after recording, before acknowledging', runId, acked),
      );
      if (killed.length > 0) {
        // What the end of the dead worker's visibility timeout does, without waiting for it.
        for (const h of batch?.handles ?? []) queue.changeVisibility(h, 0);
        throw new WorkerKilled();
      }
      return deleteMessage(handle);
    };

    // The intake's step: GitHub's delivery failed (the intake died before enqueuing); redelivery posts it for real.
    const payloads = new Map<string, object>();
    sim.onRedeliver = async ({ guid }) => {
      const payload = payloads.get(guid);
      if (!payload) return 404;
      return (await post(`${rt.url}/webhook`, await signedDelivery(SECRET, 'workflow_run', payload, guid))).status;
    };

    const addCase = (i: number, step: Case['step'], earnsRerun: boolean) => {
      const installationId = INSTALLATIONS[i % INSTALLATIONS.length]!;
      const run = sim.addRun({
        repo: `fleet${i % INSTALLATIONS.length}/app`,
        jobs: [
          {
            name: 'build',
            conclusion: 'failure',
            annotations: [{ level: 'failure', message: earnsRerun ? LOST : EXIT }],
          },
        ],
      });
      cases.push({ run, installationId, step, earnsRerun });
    };
    let i = 0;
    for (const step of STEPS) for (let n = 0; n < RUNS_PER_STEP; n++) addCase(i++, step, true);
    for (let n = 0; n < GENUINE_RUNS; n++) addCase(i++, 'none', false);

    for (const c of cases) {
      const payload = workflowRunPayload(sim, c.run.id, c.installationId);
      const guid = `kill-${c.run.id}`;
      if (c.step === 'intake, before the enqueue') {
        payloads.set(guid, payload);
        sim.addDelivery({ guid, event: 'workflow_run', action: 'completed', statusCode: 502 });
        kills.set(c.step, (kills.get(c.step) ?? 0) + 1);
        continue;
      }
      expect(
        (await post(`${rt.url}/webhook`, await signedDelivery(SECRET, 'workflow_run', payload, guid))).status,
      ).toBe(202);
    }
  }, 60_000);

  afterAll(async () => {
    await rt?.close();
    await sim?.close();
  });

  it('after sweeps and redelivery, every run attempt that earned a re-run got exactly one', async () => {
    await rt.poller.drain(20_000);
    const sweeps: SweepCounts[] = [];
    // Sweep until a sweep finds nothing more to do, once every lease has run out.
    for (let round = 0; round < 6; round++) {
      await sleep(LEASE_MS + 50);
      const counts = await rt.reconciler.sweep();
      sweeps.push(counts);
      await rt.poller.drain(20_000);
      if (counts.orphansReleased + counts.orphansRecorded + counts.redelivered === 0) break;
    }

    const rerunsOf = (c: Case) => sim.reruns.filter((r) => r.runId === c.run.id).length;
    const earned = cases.filter((c) => c.earnsRerun);
    const duplicates = cases.reduce((n, c) => n + Math.max(0, rerunsOf(c) - 1), 0);
    const lost = earned.filter((c) => rerunsOf(c) === 0).length;
    const totalKills = [...kills.values()].reduce((a, b) => a + b, 0);
    printSummary('worker killed at each step', {
      runs: cases.length,
      'earned re-runs': earned.length,
      kills: `${totalKills} (${STEPS.map((s) => `${s}: ${kills.get(s) ?? 0}`).join('; ')})`,
      'reconciler sweeps': sweeps.length,
      'orphans released': sum(sweeps, 'orphansReleased'),
      'orphans recorded retried': sum(sweeps, 'orphansRecorded'),
      'deliveries redelivered': sum(sweeps, 'redelivered'),
      're-runs made': sim.reruns.length,
      duplicates,
      lost,
      'dead letters': rt.queue.stats().deadLetters,
    });

    for (const step of STEPS) expect(kills.get(step), step).toBe(RUNS_PER_STEP);
    for (const c of earned) expect(rerunsOf(c), `run ${c.run.id} (${c.step})`).toBe(1);
    for (const c of cases.filter((x) => !x.earnsRerun)) expect(rerunsOf(c)).toBe(0);
    expect(duplicates).toBe(0);
    expect(lost).toBe(0);
    expect(sim.reruns).toHaveLength(earned.length);
    // Nothing ended in the dead-letter queue, nothing is left in flight.
    expect(rt.queue.stats()).toMatchObject({ visible: 0, inFlight: 0, deadLetters: 0 });
    // Every attempt ends decided in the ledger, whoever recorded it.
    for (const c of cases) {
      const rec = await rt.ledger.get(sim.repoId(c.run.repo), c.run.id, 1);
      expect(rec?.state, `run ${c.run.id} (${c.step})`).toBe('decided');
      expect(rec?.decision).toBe(c.earnsRerun ? 'retried' : 'genuine_failure');
    }
    expect(sweeps.at(-1)).toMatchObject({ orphansReleased: 0, orphansRecorded: 0, redelivered: 0, failed: false });
    expect(sum(sweeps, 'orphansReleased')).toBe(RUNS_PER_STEP);
    expect(sum(sweeps, 'orphansRecorded')).toBe(RUNS_PER_STEP);
    expect(sum(sweeps, 'redelivered')).toBe(RUNS_PER_STEP);
  }, 60_000);
});

const sum = (sweeps: SweepCounts[], key: keyof SweepCounts): number => sweeps.reduce((n, s) => n + Number(s[key]), 0);
