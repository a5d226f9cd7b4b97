/**
 * Issue 42, point 6, black-box: the compiled runtime as `npm start` runs it, real HTTP. A flood of
 * unsigned `POST /signals` (each answered 401) runs while GitHub's deliveries arrive, every one
 * twice under distinct GUIDs: no delivery is refused or lost, and each lost run is re-run once,
 * counted at the simulator. On AWS the two routes also have throttles of their own (HTTP API) or
 * a reserved concurrency for the signal intake (function URLs): `test/infra/resources.test.ts`
 * holds that template; moto emulates neither API Gateway throttling nor Lambda concurrency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import type { SimRun } from '../sim/runs.js';
import { COMPILED_SECRET, type CompiledRuntime, startCompiledRuntime } from '../support/compiled-runtime.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';
import { UNPACED_ENV } from '../support/harness.js';
import { until } from '../support/lease-runs.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

const INSTALLATION = 9_900;
const RUNS = 20;
const FLOOD_POSTS = 2_000;
const FLOOD_CONCURRENCY = 40;
/** The body an agent's shutdown hook sends, as docs/signals.md documents it. */
const HOOK_BODY = JSON.stringify({ runners: ['runner-linux-x64-7f3a'], kind: 'terminated', reason: 'shutdown hook' });

let sim: GitHubSimulator;
let rt: CompiledRuntime;
const runs: SimRun[] = [];
const floodAnswers = new Map<number, number>();
const deliveryAnswers: number[] = [];

/** Unsigned posts, `FLOOD_CONCURRENCY` at a time, until `FLOOD_POSTS` were answered. */
async function flood(): Promise<void> {
  let left = FLOOD_POSTS;
  const lane = async (): Promise<void> => {
    while (left-- > 0) {
      const res = await fetch(`${rt.url}/signals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer not-the-secret' },
        body: HOOK_BODY,
      });
      await res.arrayBuffer();
      floodAnswers.set(res.status, (floodAnswers.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: FLOOD_CONCURRENCY }, lane));
}

/** GitHub's deliveries of every run's completion, each twice under distinct GUIDs, while the flood runs. */
async function deliverAll(): Promise<void> {
  for (const run of runs) {
    for (let copy = 0; copy < 2; copy++) {
      // A fresh GUID for each copy, as GitHub's redelivery sends.
      const d = await signedDelivery(COMPILED_SECRET, 'workflow_run', workflowRunPayload(sim, run.id, INSTALLATION));
      const answer = await post(`${rt.url}/webhook`, d);
      deliveryAnswers.push(answer.status);
    }
  }
}

const rerunPosts = (run: SimRun): number =>
  sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/runs/${run.id}/rerun-failed-jobs`)).length;

beforeAll(async () => {
  sim = await GitHubSimulator.start();
  sim.addInstallation({ id: INSTALLATION, account: 'flooded' });
  rt = await startCompiledRuntime(sim, {
    ...UNPACED_ENV,
    RETRY_BUDGET_PER_HOUR: '0',
    BREAKER_MIN_OUTCOMES: '0',
    RECONCILE_INTERVAL_SECONDS: '0',
    SIGNAL_SECRET: 'the-agents-secret',
  });
  for (let i = 0; i < RUNS; i++) {
    runs.push(
      sim.addRun({
        repo: `flooded/service-${i}`,
        event: 'pull_request',
        jobs: [{ name: 'build', conclusion: 'failure', annotations: [failureAnnotation(TEXT.selfHostedEmptyName)] }],
      }),
    );
  }
  await Promise.all([flood(), deliverAll()]);
  await until(() => runs.every((run) => rerunPosts(run) > 0), 60_000);
  // Past the last re-run, time for any second one a lost guard would let through.
  await new Promise((r) => setTimeout(r, 3_000));
}, 240_000);

afterAll(async () => {
  await rt?.stop();
  await sim?.close();
});

describe('issue 42 point 6 through the compiled runtime: unsigned signal posts never crowd out GitHub', () => {
  it(`${FLOOD_POSTS} unsigned POST /signals beside ${RUNS * 2} deliveries: every delivery answered 202, every flood post 401`, () => {
    expect(deliveryAnswers).toHaveLength(RUNS * 2);
    expect(
      deliveryAnswers.every((s) => s === 202),
      JSON.stringify(deliveryAnswers),
    ).toBe(true);
    expect(Object.fromEntries(floodAnswers)).toEqual({ 401: FLOOD_POSTS });
  });

  it('no event lost, none doubled: every lost run re-run exactly once', () => {
    for (const run of runs) expect(rerunPosts(run), run.repo).toBe(1);
  });
});
