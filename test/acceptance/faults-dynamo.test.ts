import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import {
  audit,
  type FaultRuntime,
  planRuns,
  type PlannedRun,
  printSummary,
  SECRET,
  settle,
  startFaultRuntime,
  sweepFigures,
  tempDir,
} from '../support/faults.js';

const BEFORE = 60;
const DURING = 20;
const OUTAGE_MS = 1_500;
const LEASE_MS = 2_000;

describe('fault injection: the embedded DynamoDB stops and restarts mid-batch', () => {
  let sim: GitHubSimulator;
  let f: FaultRuntime;
  const data = tempDir('reprise-dynamo-');

  beforeAll(async () => {
    // Latency spreads the decisions out, so the outage lands while batches are being worked on.
    sim = await GitHubSimulator.start({ latencyMs: 15 });
    f = await startFaultRuntime(sim, {
      dataDir: data.path,
      workerConcurrency: 4,
      // The runtime's visibility timeout (minutes) never ends within the suite: a message is
      // received again only after its worker gave it back.
      maxReceiveCount: 5,
      deferUnitMs: 50,
      // Short, so the reconciler may take back claims orphaned by the outage within the test.
      leaseMs: LEASE_MS,
    });
  });
  afterAll(async () => {
    await f?.close();
    await sim?.close();
    data.remove();
  });

  it('embedded DynamoDB stopped and restarted mid-batch: messages retried, nothing lost', async () => {
    const runs = planRuns(sim, { count: BEFORE + DURING, seed: 8080, installations: 10, prefix: 'outage' });
    const guid = (run: PlannedRun) => `outage-delivery-${run.id}`;
    const byGuid = new Map(runs.map((r) => [guid(r), r]));
    // GitHub's record of each delivery, which the reconciler reads to redeliver failed ones.
    const record = (run: PlannedRun, statusCode: number) =>
      sim.addDelivery({
        guid: guid(run),
        event: 'workflow_run',
        action: 'completed',
        statusCode,
        installationId: run.installationId,
        repositoryId: run.repoId,
      });
    sim.onRedeliver = async ({ guid: g }) => {
      const run = byGuid.get(g)!;
      const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id, run.installationId), g);
      return (await post(`${f.rt.url}/webhook`, d)).status;
    };

    const first = runs.slice(0, BEFORE);
    const later = runs.slice(BEFORE);
    // Mid-batch: the outage starts at the tenth decision, while its batch is still being worked on.
    let stopped: Promise<void> | undefined;
    let stoppedAt = 0;
    const tenth = f.atOutcome(10, () => {
      stoppedAt = Date.now();
      stopped = f.rt.dynamo.stop();
      return f.rt.queue.stats().inFlight;
    });
    const before = await Promise.all(first.map(async (run) => (await f.deliver(run, guid(run)))[0] ?? 0));
    first.forEach((run, i) => record(run, before[i] ?? 0));

    const inFlightAtStop = await tenth;
    await stopped;
    const during = await Promise.all(later.map(async (run) => (await f.deliver(run, guid(run)))[0] ?? 0));
    later.forEach((run, i) => record(run, during[i] ?? 0));
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt)));
    await f.rt.dynamo.restart();
    const outageMs = Date.now() - stoppedAt;
    const transientDuringOutage = f.rt.metrics.get('TransientFault');

    // The reconciler takes back claims orphaned by the outage and redelivers the deliveries
    // the intake failed.
    const { redriven, sweeps } = await settle(sim, f, runs, { leaseMs: LEASE_MS });

    const a = await audit(sim, f.rt, runs);
    const failedDeliveries = [...before, ...during].filter((s) => s >= 500).length;
    printSummary('DynamoDB outage', {
      runs: a.runs,
      deliveries: BEFORE + DURING,
      'outage ms': outageMs,
      'messages in flight at stop': inFlightAtStop,
      'faults injected': `${failedDeliveries} intake 5xx + ${transientDuringOutage} worker failures`,
      'dead-lettered then redriven': redriven,
      ...sweepFigures(sweeps),
      'earned re-runs': a.earned,
      're-runs made': a.rerunsMade,
      're-run requests received': a.rerunRequests,
      duplicates: a.duplicates,
      lost: a.lost,
    });

    // The outage was real and hit work in progress.
    expect(inFlightAtStop).toBeGreaterThan(0);
    expect(failedDeliveries + transientDuringOutage).toBeGreaterThan(0);
    expect(during.every((s) => s === 500)).toBe(true);
    expect(f.log.named('worker batch failed')).toEqual([]);
    // Nothing lost, nothing doubled, every decision right.
    expect(a.undecided).toEqual([]);
    expect(a.wrong).toEqual([]);
    expect(a.duplicates).toBe(0);
    expect(a.spurious).toBe(0);
    expect(a.lost).toBe(0);
    expect(a.rerunsMade).toBe(a.earned);
    expect(a.rerunRequests).toBeGreaterThanOrEqual(a.earned);
    expect(f.rt.queue.deadLetters).toHaveLength(0);
  }, 60_000);
});
