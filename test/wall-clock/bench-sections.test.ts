/**
 * The bench cannot rot: every section of `npm run bench` after the first (bench-smoke.test.ts)
 * runs here in its `--quick` form, judged on behaviour and counts, never on timings, so a
 * setting or an interface a section depends on cannot break `npm run bench` unnoticed (one
 * stopped at section 2 on a retry budget the setting no longer accepted).
 */
import { describe, expect, it } from 'vitest';
import { measureBurst, measureStartTree } from '../bench/burst.js';
import { measureColdStart } from '../bench/cold-start.js';
import { estimateCost } from '../bench/cost.js';
import { readDeployment } from '../bench/deployment.js';
import { evaluateGoals } from '../bench/goals.js';
import { measureIntake } from '../bench/intake.js';
import { measureLatency } from '../bench/latency.js';
import { RUNTIME_ANON, RUNTIME_FILE } from '../bench/process-tree.js';
import { measureRequests } from '../bench/requests.js';
import { measureWave } from '../bench/wave.js';
import { measureRecovery } from '../bench/recovery.js';

const quick = { latencyMs: 0, quick: true } as const;

describe('npm run bench -- --quick, section by section', () => {
  it('section 2 (webhook to re-run): both streams decide every delivery, with DynamoDB capacity counted per decision', async () => {
    const r = await measureLatency({ ...quick, workerConcurrency: 5 });
    expect(r.streams.map((s) => [s.name, s.decisions])).toEqual([
      ['5 installations, round robin', 12],
      ['one installation', 12],
    ]);
    for (const s of r.streams) {
      expect(s.latency.n).toBe(12);
      expect(s.dynamoPerDecision.writeUnits).toBeGreaterThan(0);
    }
    expect(r.firstDecision.n).toBeGreaterThan(0);
  }, 240_000);

  it('section 3 (burst): 50 runs in-process and through npm start, each re-run once, at most 4 counted GitHub requests a run, memory read per process tree and per component', async () => {
    const r = await measureBurst({ ...quick, workerConcurrency: 5 });
    expect(r.runs).toBe(50);
    expect(r.reruns).toBe(50);
    expect(r.runsRerunTwice).toBe(0);
    expect(r.runsNotRerun).toBe(0);
    expect(r.requests.counted / r.runs).toBeLessThanOrEqual(4);
    expect(r.peakRssMb).toBeGreaterThan(0);
    const tree = await measureStartTree(quick);
    expect(tree.runs).toBe(50);
    expect(tree.processes).toBeGreaterThanOrEqual(1);
    expect(tree.peakMb).toBeGreaterThanOrEqual(tree.idleMb);
    // The peak per component: npm, the runtime, and the runtime's own split.
    const c = tree.peakByComponentMb;
    expect(Object.keys(c)).toEqual(expect.arrayContaining(['npm', 'runtime (node)', RUNTIME_ANON, RUNTIME_FILE]));
    expect(c[RUNTIME_ANON]! + c[RUNTIME_FILE]!).toBeLessThanOrEqual(c['runtime (node)']! * 1.05);
    expect(c[RUNTIME_ANON]).toBeGreaterThan(0);
  }, 300_000);

  it('sections 4 and 6 (intake, cost): every intake variant answers every request, and the cost adds up from sections 1, 2 and 4 and the synthesized stack', async () => {
    const intake = await measureIntake({ quick: true });
    expect(intake.variants.length).toBeGreaterThanOrEqual(2);
    for (const v of intake.variants) expect(v.perRequest.n).toBe(1000);
    const requests = await measureRequests(quick);
    const deployment = readDeployment();
    const cost = estimateCost(requests, intake, deployment);
    expect(cost.aws.length).toBeGreaterThan(0);
    expect(cost.awsTotal).toBeCloseTo(
      cost.aws.reduce((sum, line) => sum + line.usd, 0),
      6,
    );
    expect(evaluateGoals({ requests, intake }).length).toBeGreaterThan(0);
  }, 300_000);

  it('section 5 (bundles and load time): every function bundles both ways and loads in a fresh process, and every bundle npm pack ships loads on Node 22, the SDK-bundled ones by default', async () => {
    const r = await measureColdStart({ quick: true });
    expect(r.functions.map((f) => f.name)).toEqual(
      expect.arrayContaining(['intake', 'worker', 'reconciler', 'signal-intake', 'ec2-signal']),
    );
    for (const f of r.functions) {
      expect(f.error, f.name).toBeUndefined();
      expect(f.bytes.external, f.name).toBeGreaterThan(0);
      expect(f.importMs.external, f.name).toBeGreaterThan(0);
    }
    // The shipped bundles on Node 22, when the build and Node 22 are here (the suite builds; .ci/run installs Node 22).
    if (r.shipped) {
      expect(r.shipped.node).toMatch(/^v22\./);
      // What the construct deploys by default is what the package ships: every function with its SDK.
      expect(r.shipped.bundles.filter((b) => b.byDefault).map((b) => b.dir)).toEqual([
        'ec2-signal-sdk',
        'intake-sdk',
        'reconciler-sdk',
        'signal-intake-sdk',
        'worker-sdk',
      ]);
      for (const b of r.shipped.bundles) expect(b.importMs, b.dir).toBeGreaterThan(0);
    }
  }, 300_000);

  it('section 7 (spot wave through npm start): every run re-run once, none refused, at most 4.5 GitHub requests a run on the installation’s behalf, at most 4 of them rate-limited, the App’s delivery-log reads counted apart (one a decision, one a turn)', async () => {
    const r = await measureWave(quick);
    expect(r.rerunPosts).toBe(r.runs);
    expect(r.duplicates).toBe(0);
    expect(r.dropped).toBe(0);
    expect(r.refusals).toBe(0);
    expect(r.requestsPerRun).toBeLessThanOrEqual(4.5);
    // Each run's decision reads the App's delivery log once beside its first listing, and once
    // more beside the listing at its turn when it waited; a copy settles without reading. Token
    // exchanges on top.
    expect(r.appRequestsPerRun).toBeGreaterThanOrEqual(1);
    expect(r.appRequestsPerRun).toBeLessThanOrEqual(2.5);
    // A run that waited lists its jobs again on their ETag: the 304 is free.
    expect(r.rateLimitedPerRun).toBeLessThanOrEqual(4);
  }, 300_000);

  it('section 8 (time to recovery through npm start): every lost run re-run once; with last_job one force-cancel each and before the lease, with off none and after it', async () => {
    const r = await measureRecovery(quick);
    const [early, off] = r.modes;
    expect(early).toMatchObject({ mode: 'last_job', reruns: early!.runs, forceCancels: early!.runs });
    expect(off).toMatchObject({ mode: 'off', reruns: off!.runs, forceCancels: 0 });
    expect(early!.p95Seconds!).toBeLessThan(r.lease.leaseMs / 1000);
    expect(off!.p50Seconds!).toBeGreaterThanOrEqual(r.lease.leaseMs / 1000);
  }, 300_000);
});
