/**
 * Control tests for the re-run counters: reprise behind a GitHub that receives every re-run
 * POST twice. Each counter the suites and the bench assert "zero duplicates" with must see
 * every doubled call, or its zero proves nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rerunFigures } from '../bench/burst.js';
import { GitHubSimulator } from '../sim/index.js';
import { type DoublingProxy, startDoublingProxy } from '../support/doubling-proxy.js';
import {
  audit,
  type Audit,
  type FaultRuntime,
  type PlannedRun,
  planRuns,
  settle,
  startFaultRuntime,
} from '../support/faults.js';

describe('every re-run POST sent twice: the counters report each as a duplicate', () => {
  let sim: GitHubSimulator;
  let proxy: DoublingProxy;
  let f: FaultRuntime;
  let runs: PlannedRun[];
  let earned: PlannedRun[];
  let a: Audit;

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    proxy = await startDoublingProxy(sim.url);
    f = await startFaultRuntime(sim, { env: { GITHUB_API_URL: proxy.url }, leaseMs: 500 });
    runs = planRuns(sim, { count: 18, seed: 4242, installations: 6, prefix: 'doubled' });
    earned = runs.filter((r) => r.earnsRerun);
    await Promise.all(runs.map((run, i) => f.deliver(run, `doubled-${i}`)));
    await settle(sim, f, runs, { leaseMs: 500 });
    a = await audit(sim, f.rt, runs);
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await proxy?.close();
    await sim?.close();
  });

  it('the doubling happened: each earned run was re-run once and asked twice', () => {
    expect(earned.length).toBeGreaterThan(0);
    expect(proxy.doubled).toBe(earned.length);
    // What GitHub accepted cannot show it: the second rerun-failed-jobs is refused 403.
    expect(sim.reruns).toHaveLength(earned.length);
    const refused = sim.rerunRequests.filter((r) => r.status === 403);
    expect(refused).toHaveLength(earned.length);
    expect(new Set(refused.map((r) => r.message))).toEqual(new Set(['No failed jobs to re-run']));
  });

  it('audit() (duplicate, GitHub-fault and DynamoDB-outage suites) counts every earned run as a duplicate', () => {
    expect(a.duplicates).toBe(earned.length);
    expect(a.rerunRequests).toBe(2 * earned.length);
    expect(a.rerunsMade).toBe(earned.length);
    expect(a.lost).toBe(0);
  });

  it("the kill suite's and the end-to-end test's per-run counts see two requests", () => {
    for (const run of earned) {
      expect(sim.rerunTally(run.id)).toEqual({ received: 2, accepted: 1, repeats: 1 });
      expect(sim.count('POST', new RegExp(`/actions/runs/${run.id}/rerun-failed-jobs$`))).toBe(2);
    }
  });

  it("the burst benchmark's figure counts every earned run as re-run twice", () => {
    expect(
      rerunFigures(
        sim,
        earned.map((r) => r.id),
      ),
    ).toEqual({ runsRerunTwice: earned.length, runsNotRerun: 0 });
  });
});
