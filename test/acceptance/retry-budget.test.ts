import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentSettings } from '../../lib/config/env.js';
import type { RunMessage } from '../../lib/model.js';
import type { RunOutcome } from '../../lib/worker/result.js';
import { BUILT_IN_DEFAULTS } from '../../lib/config/repo-config.js';
import { type BudgetFacts, decide, type DecisionFacts } from '../../lib/decide/decide.js';
import { INSTALLATION_ID, startHarness, TABLE, type Harness } from '../support/harness.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { TEXT } from '../support/evidence.js';

const LOST = TEXT.selfHostedEmptyName;
const MINUTE = 60_000;

describe('retry budget (per installation, rolling hour)', () => {
  let h: Harness;
  let now = Date.parse('2026-12-02T10:00:00Z');
  const clock = () => now;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  const lostRun = (repo = 'acme/budget') =>
    h.sim.addRun({
      repo,
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] }],
    });

  it('0 turns the budget off: no reads, no writes, and decide() never answers budget_exhausted', async () => {
    const budget = h.ledger.at(clock).budget(0);
    for (let i = 0; i < 3; i++) expect(await budget.take(401, `x${i}`)).toEqual({ taken: true });
    expect(await budget.usage(401)).toEqual({ limit: 0, used: 0 });
    // decide() itself: with a limit of 0 any count passes the budget check (it asks for the
    // jobs next); the same count under a limit refuses.
    const run = lostRun();
    const facts = (budget: BudgetFacts): DecisionFacts => ({
      message: h.message(run.id),
      config: BUILT_IN_DEFAULTS,
      run: {
        id: run.id,
        status: 'completed',
        conclusion: 'failure',
        runAttempt: 1,
        event: 'push',
        headSha: run.headSha,
        headBranch: 'main',
        workflowId: 1,
        createdAt: run.createdAt,
      },
      // The head of its branch: its staleness checked and clean.
      stale: {},
      budget,
    });
    for (const used of [0, 1, 60, 10_000]) {
      expect(decide(facts({ limit: 0, used }))).toEqual({ kind: 'need', what: 'jobs' });
    }
    expect(decide(facts({ limit: 1, used: 1 }))).toMatchObject({ kind: 'final', decision: 'budget_exhausted' });
    // And through the worker, after many re-runs this hour: each lost run is re-run.
    const decisions: string[] = [];
    for (const r of [run, lostRun(), lostRun()]) {
      await h.worker({ budget, onOutcome: (_m, o) => decisions.push(o.decision) })(h.sqsEvent([h.message(r.id)]));
    }
    expect(decisions).toEqual(['retried', 'retried', 'retried']);
    const items = await DynamoDBDocumentClient.from(h.dynamo.client).send(
      new ScanCommand({
        TableName: TABLE,
        FilterExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'BUDGET#401' },
      }),
    );
    expect(items.Items).toHaveLength(0);
  });

  it('RETRY_BUDGET_PER_HOUR is parsed once: default 0 (no ceiling), a limit allowed, a negative value refused', () => {
    expect(deploymentSettings({}).retryBudgetPerHour).toBe(0);
    expect(deploymentSettings({ RETRY_BUDGET_PER_HOUR: '60' }).retryBudgetPerHour).toBe(60);
    expect(deploymentSettings({ RETRY_BUDGET_PER_HOUR: '0' }).retryBudgetPerHour).toBe(0);
    expect(() => deploymentSettings({ RETRY_BUDGET_PER_HOUR: '-3' })).toThrow(/RETRY_BUDGET_PER_HOUR/);
  });

  it('when spent: the decision is budget_exhausted, the metric BudgetExhausted counts it, and no re-run is made', async () => {
    const budget = h.ledger.at(clock).budget(2);
    const runs = [lostRun(), lostRun(), lostRun()];
    const decisions: string[] = [];
    for (const run of runs) {
      const res = await h.worker({ budget, onOutcome: (_m, o) => decisions.push(o.decision) })(
        h.sqsEvent([h.message(run.id)]),
      );
      expect(res.batchItemFailures).toEqual([]);
    }
    expect(decisions).toEqual(['retried', 'retried', 'budget_exhausted']);
    expect(h.sim.rerunTally(runs[2]!.id).received).toBe(0);
    expect(h.metrics.get('BudgetExhausted')).toBe(1);
    expect(h.metrics.get('Decision{decision=budget_exhausted}')).toBe(1);
    const line = h.log.named('decision').find((l) => l.run_id === runs[2]!.id);
    expect(line?.reason).toMatch(/retry budget spent: 2 of 2 this hour/);

    // An hour later the window has moved on: the next lost runner is re-run again.
    now += 61 * MINUTE;
    const later = lostRun();
    const out: RunOutcome[] = [];
    await h.worker({ budget, onOutcome: (_m, o) => out.push(o) })(h.sqsEvent([h.message(later.id)]));
    expect(out.map((o) => o.decision)).toEqual(['retried']);
  });

  it("one repository cannot spend the installation's retry budget: past its share its runs end budget_exhausted, another repository's lost run is re-run", async () => {
    now += 2 * 60 * MINUTE;
    // Four re-runs an hour, half of them for any one repository (PACE_REPOSITORY_SHARE_PERCENT=50).
    const budget = h.ledger.at(clock).budget(4, 0.5);
    const greedy = [lostRun('acme/greedy'), lostRun('acme/greedy'), lostRun('acme/greedy')];
    const other = lostRun('acme/quiet');
    const decisions: [number, string][] = [];
    for (const run of [...greedy, other]) {
      await h.worker({ budget, onOutcome: (_m, o) => decisions.push([run.id, o.decision]) })(
        h.sqsEvent([h.message(run.id)]),
      );
    }
    expect(decisions.map(([, d]) => d)).toEqual(['retried', 'retried', 'budget_exhausted', 'retried']);
    expect(h.sim.rerunTally(greedy[2]!.id).received).toBe(0);
    expect(h.sim.rerunTally(other.id).received).toBe(1);
    const line = h.log.named('decision').find((l) => l.run_id === greedy[2]!.id);
    expect(line?.reason).toMatch(
      /repository's share of the installation retry budget spent: 2 of 2 this hour \(the installation's: 2 of 4\); other repositories go on/,
    );
  });

  it('concurrent workers of one installation, each deciding its batch’s runs side by side, re-run exactly the budget, never more', async () => {
    const WORKERS = 4;
    const PER_WORKER = 4;
    const LIMIT = 2;
    h.sim.addInstallation({ id: 888, account: 'storm' });
    const budget = h.ledger.at(clock).budget(LIMIT);
    const runs = Array.from({ length: WORKERS * PER_WORKER }, () =>
      h.sim.addRun({
        repo: 'storm/app',
        jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] }],
      }),
    );
    const decisions: string[] = [];
    // Each worker gets a batch of the same installation's lost runs; all start at once.
    await Promise.all(
      Array.from({ length: WORKERS }, (_, w) =>
        h.worker({ budget, onOutcome: (_m, o) => decisions.push(o.decision) })(
          h.sqsEvent(runs.slice(w * PER_WORKER, (w + 1) * PER_WORKER).map((r) => h.message(r.id, undefined, 888))),
        ),
      ),
    );
    const retried = decisions.filter((d) => d === 'retried').length;
    const requests = runs.reduce((n, r) => n + h.sim.rerunTally(r.id).received, 0);
    expect(decisions).toHaveLength(runs.length);
    expect(retried).toBe(LIMIT);
    expect(requests).toBe(LIMIT);
    expect(decisions.filter((d) => d === 'budget_exhausted')).toHaveLength(runs.length - retried);
    expect(await budget.usage(888)).toEqual({ limit: LIMIT, used: retried });
  });

  it('a unit is given back when GitHub refuses the re-run or rate-limits the call, and kept when the call’s outcome is unknown', async () => {
    h.sim.addInstallation({ id: 889, account: 'refusals' });
    const budget = h.ledger.at(clock).budget(1);
    const lost = () =>
      h.sim.addRun({
        repo: 'refusals/app',
        jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] }],
      });
    const decide = async (runId: number) => {
      const out: string[] = [];
      const res = await h.worker({ budget, onOutcome: (_m, o) => out.push(o.decision) })(
        h.sqsEvent([h.message(runId, undefined, 889)]),
      );
      return { decisions: out, failed: res.batchItemFailures.length };
    };
    // Refused for good (the run is too old to re-run): nothing was re-run, the unit goes back.
    const refused = lost();
    h.sim.injectFault({
      method: 'POST',
      path: new RegExp(`/runs/${refused.id}/rerun`),
      status: 403,
      times: 3,
      message: 'Unable to re-run this workflow run because it was created over a month ago',
    });
    expect((await decide(refused.id)).decisions).toEqual(['rerun_rejected']);
    expect(await budget.usage(889)).toEqual({ limit: 1, used: 0 });
    // Rate-limited: turned away before GitHub acted, retried later; the unit goes back meanwhile.
    const limited = lost();
    h.sim.injectFault({
      method: 'POST',
      path: new RegExp(`/runs/${limited.id}/rerun-failed-jobs$`),
      status: 429,
      retryAfter: 30,
      times: 1,
    });
    expect(await decide(limited.id)).toEqual({ decisions: [], failed: 1 });
    expect(await budget.usage(889)).toEqual({ limit: 1, used: 0 });
    // A 502 on the call: GitHub may have re-run it, so the unit stays taken.
    const unknown = lost();
    h.sim.injectFault({
      method: 'POST',
      path: new RegExp(`/runs/${unknown.id}/rerun-failed-jobs$`),
      status: 502,
      times: 1,
    });
    expect((await decide(unknown.id)).failed).toBe(1);
    expect(await budget.usage(889)).toEqual({ limit: 1, used: 1 });
  });

  it('the budget of one installation does not stop another', async () => {
    h.sim.addInstallation({ id: 777, account: 'other' });
    const budget = h.ledger.at(clock).budget(1);
    await budget.take(INSTALLATION_ID, 'fill');
    const run = h.sim.addRun({
      repo: 'other/app',
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] }],
    });
    const message: RunMessage = h.message(run.id, undefined, 777);
    const out: RunOutcome[] = [];
    await h.worker({ budget, onOutcome: (_m, o) => out.push(o) })(h.sqsEvent([message]));
    expect(out.map((o) => o.decision)).toEqual(['retried']);
    expect(await budget.usage(777)).toEqual({ limit: 1, used: 1 });
  });
});

describe('retry budget in the local runtime (RETRY_BUDGET_PER_HOUR)', () => {
  let local: LocalSetup;
  beforeAll(async () => {
    local = await startLocal({
      secret: 'budget-secret',
      env: { RETRY_BUDGET_PER_HOUR: '1', RECONCILE_INTERVAL_SECONDS: '0' },
      workerConcurrency: 1,
    });
  });
  afterAll(async () => local.close());

  it('a second lost runner in the same hour is budget_exhausted; the metric is counted', async () => {
    const { sim, rt, outcomes } = local;
    const runs = [1, 2].map(() =>
      sim.addRun({
        repo: 'acme/storm',
        jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] }],
      }),
    );
    for (const run of runs) {
      const d = await signedDelivery('budget-secret', 'workflow_run', workflowRunPayload(sim, run.id));
      expect((await post(`${rt.url}/webhook`, d)).status).toBe(202);
      await rt.poller.drain(10_000);
    }
    expect(outcomes.map((o) => o.outcome.decision)).toEqual(['retried', 'budget_exhausted']);
    expect(sim.rerunRequests).toHaveLength(1);
    expect(rt.metrics.get('BudgetExhausted')).toBe(1);
  });
});
