import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from '../../lib/local/runtime.js';
import type { RunMessage } from '../../lib/model.js';
import type { SweepCounts } from '../../lib/reconcile/reconciler.js';
import { GitHubSimulator, type SimRun } from '../sim/index.js';
import { MemoryLog } from '../support/memory-log.js';
import { signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { faultRuntimeEnv, printSummary } from '../support/faults.js';
import { EXIT, LOST } from '../support/reconcile-kit.js';

const SECRET = 'kill-secret';
/** A lease in the hundreds of milliseconds keeps the suite fast; sweeps wait it out in full. */
const LEASE_MS = 800;

/** The process dying at this point: a fault no real dependency can be made to produce on cue. */
class WorkerKilled extends Error {
  override name = 'WorkerKilled';
}

/** How long GitHub waits for the intake's answer here (10 s in production) before it records a failed delivery. */

const STEPS = [
  'intake, before the enqueue',
  'intake, after the enqueue, before mark-seen',
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

describe('the intake or a worker killed at each step', () => {
  let sim: GitHubSimulator;
  let rt: Runtime;
  const log = new MemoryLog();
  const kills = new Map<Step, number>();
  const cases: Case[] = [];
  /** The status each first delivery got from the intake (0: no answer). */
  const firstAnswers = new Map<number, number>();

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
    const attempts = rt.ledger.attempts;
    const claim = attempts.claim.bind(attempts);
    const claimed = new Set<number>();
    attempts.claim = async (msg, owner, leaseMs) => {
      const result = await claim(msg, owner, leaseMs);
      if (result.claimed && killOnce('worker, after the claim', msg.runId, claimed)) throw new WorkerKilled();
      return result;
    };
    const finalise = attempts.finalise.bind(attempts);
    const finalised = new Set<number>();
    attempts.finalise = async (msg, owner, decision, reason, details) => {
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

    // The payload and run of each delivery GitHub sends.
    const payloads = new Map<string, object>();
    const runOfGuid = new Map<string, number>();
    // The intake's steps, through the queue and the delivery registry it was built with. Dying
    // before the enqueue: the send throws, nothing is queued, the intake answers 5xx.
    const send = queue.send.bind(queue);
    const enqueued = new Set<number>();
    queue.send = (input) => {
      const runId = (JSON.parse(input.body) as RunMessage).runId;
      if (killOnce('intake, before the enqueue', runId, enqueued)) throw new WorkerKilled();
      return send(input);
    };
    // Dying between the enqueue and mark-seen: the message is queued, the intake never answers
    // and never marks the delivery seen.
    const deliveries = rt.ledger.deliveries;
    const markSeen = deliveries.markSeen.bind(deliveries);
    const marked = new Set<number>();
    // GitHub gives up on an intake that never answers: here, the moment it is killed, not after a
    // time a loaded machine could also take to answer.
    const giveUp = new Map<string, AbortController>();
    deliveries.markSeen = (guid, event) => {
      const runId = runOfGuid.get(guid);
      if (runId !== undefined && killOnce('intake, after the enqueue, before mark-seen', runId, marked)) {
        giveUp.get(guid)?.abort();
        return new Promise<void>(() => undefined);
      }
      return markSeen(guid, event);
    };

    // GitHub's side: each delivery is posted to the intake and recorded with the status it got
    // (0 when the intake never answered); a redelivery posts it again, for real.
    const post = async (guid: string): Promise<number> => {
      const payload = payloads.get(guid);
      if (!payload) return 404;
      const d = await signedDelivery(SECRET, 'workflow_run', payload, guid);
      const controller = new AbortController();
      giveUp.set(guid, controller);
      try {
        const res = await fetch(`${rt.url}/webhook`, {
          method: 'POST',
          headers: d.headers,
          body: d.body,
          signal: controller.signal,
        });
        return res.status;
      } catch {
        return 0;
      } finally {
        giveUp.delete(guid);
      }
    };
    sim.onRedeliver = ({ guid }) => post(guid);

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
      const guid = `kill-${c.run.id}`;
      payloads.set(guid, workflowRunPayload(sim, c.run.id, c.installationId));
      runOfGuid.set(guid, c.run.id);
      const statusCode = await post(guid);
      sim.addDelivery({
        guid,
        event: 'workflow_run',
        action: 'completed',
        statusCode,
        installationId: c.installationId,
      });
      firstAnswers.set(c.run.id, statusCode);
    }
  }, 60_000);

  afterAll(async () => {
    await rt?.close();
    await sim?.close();
  });

  it('a killed intake answered GitHub with a failure and left the delivery unseen; the others were accepted', async () => {
    for (const c of cases) {
      const answer = firstAnswers.get(c.run.id);
      if (c.step === 'intake, before the enqueue') expect(answer, `run ${c.run.id}`).toBe(500);
      else if (c.step === 'intake, after the enqueue, before mark-seen') expect(answer, `run ${c.run.id}`).toBe(0);
      else expect(answer, `run ${c.run.id}`).toBe(202);
      const seen = await rt.ledger.deliveries.isSeen(`kill-${c.run.id}`);
      expect(seen, `run ${c.run.id} (${c.step})`).toBe(!c.step.startsWith('intake'));
    }
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

    // Counted from every re-run request GitHub received, refused ones included.
    const tally = (c: Case) => sim.rerunTally(c.run.id);
    const earned = cases.filter((c) => c.earnsRerun);
    const duplicates = cases.filter((c) => tally(c).repeats > 0).length;
    const lost = earned.filter((c) => tally(c).accepted === 0).length;
    const totalKills = [...kills.values()].reduce((a, b) => a + b, 0);
    printSummary('intake or worker killed at each step', {
      runs: cases.length,
      'earned re-runs': earned.length,
      kills: `${totalKills} (${STEPS.map((s) => `${s}: ${kills.get(s) ?? 0}`).join('; ')})`,
      'reconciler sweeps': sweeps.length,
      'orphans released': sum(sweeps, 'orphansReleased'),
      'orphans recorded retried': sum(sweeps, 'orphansRecorded'),
      'deliveries redelivered': sum(sweeps, 'redelivered'),
      're-runs made': sim.reruns.length,
      're-run requests received': sim.rerunRequests.length,
      duplicates,
      lost,
      'dead letters': rt.queue.stats().deadLetters,
    });

    for (const step of STEPS) expect(kills.get(step), step).toBe(RUNS_PER_STEP);
    for (const c of earned)
      expect(tally(c), `run ${c.run.id} (${c.step})`).toEqual({ received: 1, accepted: 1, repeats: 0 });
    for (const c of cases.filter((x) => !x.earnsRerun)) expect(tally(c).received).toBe(0);
    expect(duplicates).toBe(0);
    expect(lost).toBe(0);
    expect(sim.rerunRequests).toHaveLength(earned.length);
    // Nothing ended in the dead-letter queue, nothing is left in flight.
    expect(rt.queue.stats()).toMatchObject({ visible: 0, inFlight: 0, deadLetters: 0 });
    // Every attempt ends decided in the ledger, whoever recorded it.
    for (const c of cases) {
      const rec = await rt.ledger.attempts.get(sim.repoId(c.run.repo), c.run.id, 1);
      expect(rec?.state, `run ${c.run.id} (${c.step})`).toBe('decided');
      expect(rec?.decision).toBe(c.earnsRerun ? 'retried' : 'genuine_failure');
    }
    expect(sweeps.at(-1)).toMatchObject({ orphansReleased: 0, orphansRecorded: 0, redelivered: 0, failed: false });
    expect(sum(sweeps, 'orphansReleased')).toBe(RUNS_PER_STEP);
    expect(sum(sweeps, 'orphansRecorded')).toBe(RUNS_PER_STEP);
    // Both intake kills left a failed delivery that only the reconciler's redelivery recovered.
    expect(sum(sweeps, 'redelivered')).toBe(2 * RUNS_PER_STEP);
  }, 60_000);
});

const sum = (sweeps: SweepCounts[], key: keyof SweepCounts): number => sweeps.reduce((n, s) => n + Number(s[key]), 0);

describe('the enqueue fails', () => {
  let sim: GitHubSimulator;
  let rt: Runtime;

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: 5201, account: 'enqueue' });
    rt = await startRuntime({ env: faultRuntimeEnv(sim, SECRET), log: new MemoryLog(), port: 0, retryBaseMs: 1 });
  });
  afterAll(async () => {
    await rt?.close();
    await sim?.close();
  });

  it('the intake answers 5xx and leaves the delivery unseen; GitHub delivering it again gets it re-run exactly once', async () => {
    const run = sim.addRun({
      repo: 'enqueue/app',
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] }],
    });
    const queue = rt.queue;
    const send = queue.send.bind(queue);
    let failures = 0;
    queue.send = (input) => {
      if (failures++ === 0) throw new Error('queue unavailable');
      return send(input);
    };
    const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id, 5201), 'enqueue-fails');
    const deliver = () => fetch(`${rt.url}/webhook`, { method: 'POST', headers: d.headers, body: d.body });

    expect((await deliver()).status).toBe(500);
    expect(await rt.ledger.deliveries.isSeen('enqueue-fails')).toBe(false);
    expect(queue.stats()).toMatchObject({ sent: 0, visible: 0, inFlight: 0 });
    await rt.poller.drain(10_000);
    expect(sim.rerunTally(run.id).received).toBe(0);

    // Not taken for a duplicate: the second delivery is enqueued and decided.
    const again = await deliver();
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ reason: 'enqueued' });
    expect(await rt.ledger.deliveries.isSeen('enqueue-fails')).toBe(true);
    await rt.poller.drain(10_000);
    expect(sim.rerunTally(run.id)).toEqual({ received: 1, accepted: 1, repeats: 0 });
    expect(failures).toBe(2);
  }, 30_000);
});
