import { describe, expect, it } from 'vitest';
import type { DecisionEvent, RerunOutcomeEvent } from '../../lib/events/types.js';
import type { RunMessage } from '../../lib/model.js';
import { decisionLine } from '../../lib/worker/context.js';
import type { Judged } from '../../lib/worker/evaluate.js';
import { recordDecision, recordOutcome } from '../../lib/worker/record-decision.js';
import { config, failedJob, jobVerdict, runMessage } from '../support/fixtures.js';
import { fakeRepoApi, fakeWorld } from '../support/fakes/context.js';

const rerunStep = { kind: 'rerun', reason: 'runner lost', cancelledOnly: false, evidence: 'exact' } as const;
const judged = (over: Partial<Judged> = {}): Judged => ({
  step: rerunStep,
  facts: { message: runMessage(), config: config() },
  verdicts: [jobVerdict(failedJob({ name: 'build' }), 'infra', 'signal')],
  unexamined: 0,
  config: config(),
  priorRequests: 0,
  ...over,
});
/** A decision's GitHub reads so far: each counts as a request. */
async function apiThatRead(n: number) {
  const api = fakeRepoApi({ latestJobs: async () => ({ jobs: [] }), createCheckRun: async () => undefined });
  for (let i = 0; i < n; i++) await api.latestJobs(1);
  return api;
}

describe('recording the decision', () => {
  it('finalises the claim with both halves of the requests, logs the line, then publishes the event', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, w.ctx.owner, 60_000);
    // What the ledger holds when the event leaves.
    const stateAtPublish: string[] = [];
    const events = { publish: async () => void stateAtPublish.push(w.attempts.of(msg).state) };
    const ctx = { ...w.ctx, obs: { ...w.ctx.obs, events } };
    const outcome = await recordDecision(
      msg,
      judged({ priorRequests: 2 }),
      { decision: 'retried', reason: 'runner lost; re-ran 1 failed job' },
      await apiThatRead(3),
      ctx,
      decisionLine(msg),
    );
    expect(outcome).toMatchObject({ decision: 'retried', requests: 5 });
    expect(w.attempts.of(msg)).toMatchObject({ state: 'decided', decision: 'retried', details: { requests: 5 } });
    expect(stateAtPublish).toEqual(['decided']);
    expect(w.log.named('decision')).toMatchObject([{ decision: 'retried', requests: 5, run_id: msg.runId }]);
    expect(w.log.named('job')).toMatchObject([{ name: 'build', verdict: 'infra', source: 'signal' }]);
    expect([w.metrics.get('Rerun'), w.metrics.get('ExactSignalRetry'), w.metrics.get('TextOnlyRetry')]).toEqual([
      1, 1, 0,
    ]);
  });

  it("the ledger's record of the decision carries each job's family and pattern beside its source; a verdict kept by an older version records what it did before", async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, w.ctx.owner, 60_000);
    const byText = jobVerdict(failedJob({ name: 'lint' }), 'infra', 'annotations', {
      family: 'runner-loss',
      pattern: 'self-hosted-lost',
    });
    const older = jobVerdict(failedJob({ name: 'docs' }), 'infra', 'annotations');
    await recordDecision(
      msg,
      judged({ verdicts: [byText, older] }),
      { decision: 'retried', reason: 'lost' },
      await apiThatRead(0),
      w.ctx,
      decisionLine(msg),
    );
    const jobs = (w.attempts.of(msg).details as { jobs: object[] }).jobs;
    expect(jobs[0]).toEqual({
      ...jobs[0],
      name: 'lint',
      source: 'annotations',
      family: 'runner-loss',
      pattern: 'self-hosted-lost',
    });
    expect(jobs[1]).not.toHaveProperty('family');
    expect(jobs[1]).not.toHaveProperty('pattern');
    expect(jobs[1]).toMatchObject({ name: 'docs', verdict: 'infra', source: 'annotations' });
  });

  it('the decision line names each family of lost-job evidence once, and none for a run with no lost job', async () => {
    const lines = async (verdicts: Judged['verdicts'], decision: 'retried' | 'genuine_failure') => {
      const w = fakeWorld();
      const msg = runMessage();
      await w.attempts.claim(msg, w.ctx.owner, 60_000);
      await recordDecision(
        msg,
        judged({ verdicts }),
        { decision, reason: 'r' },
        await apiThatRead(0),
        w.ctx,
        decisionLine(msg),
      );
      return w.log.named('decision')[0]!;
    };
    const mixed = await lines(
      [
        jobVerdict(failedJob(), 'infra', 'platform'),
        jobVerdict(failedJob(), 'infra', 'annotations'),
        jobVerdict(failedJob(), 'infra', 'platform'),
        jobVerdict(failedJob(), 'genuine', 'logs'),
      ],
      'retried',
    );
    expect([...(mixed.evidence as string[])].sort()).toEqual(['annotations', 'platform']);
    const genuine = await lines([jobVerdict(failedJob(), 'genuine', 'annotations')], 'genuine_failure');
    expect(genuine).not.toHaveProperty('evidence');
  });

  it('a broken repository file is named in the reason and the line', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, w.ctx.owner, 60_000);
    const j = judged({
      step: { kind: 'final', decision: 'ignored', reason: 'x' },
      configError: 'reprise.yml fails closed',
      configErrorRaw: 'line 2: bad',
    });
    const outcome = await recordDecision(
      msg,
      j,
      { decision: 'ignored', reason: 'disabled' },
      await apiThatRead(0),
      w.ctx,
      decisionLine(msg),
    );
    expect(outcome.reason).toBe('reprise.yml fails closed; disabled');
    expect(w.log.named('decision')).toMatchObject([{ config_error: 'line 2: bad' }]);
    expect(w.metrics.get('Rerun')).toBe(0);
  });

  it('a claim lost before the record is said, and the decision still published', async () => {
    const w = fakeWorld();
    const msg = runMessage();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    const outcome = await recordDecision(
      msg,
      judged(),
      { decision: 'rerun_rejected', reason: 'already running' },
      await apiThatRead(1),
      w.ctx,
      decisionLine(msg),
    );
    expect(outcome.decision).toBe('rerun_rejected');
    expect(w.attempts.of(msg)).toMatchObject({ state: 'claimed', owner: 'worker-b' });
    expect(w.log.named('claim was lost before the decision was recorded')).toHaveLength(1);
    expect((w.events.published as DecisionEvent[]).map((e) => e.decision)).toEqual(['rerun_rejected']);
  });

  it('a check run takes a free slot of the pace; with none free soon it yields and is skipped', async () => {
    const w = fakeWorld({ spacingMs: 5_000, defaults: { report: 'check_run' } });
    const [first, second] = [runMessage({ runId: 1 }), runMessage({ runId: 2 })];
    const created: string[] = [];
    const api = fakeRepoApi({ createCheckRun: async (r: never) => void created.push((r as { title: string }).title) });
    for (const msg of [first, second]) {
      await w.attempts.claim(msg, w.ctx.owner, 60_000);
      const j = judged({ config: w.ctx.settings.defaults });
      await recordDecision(msg, j, { decision: 'retried', reason: 'lost' }, api, w.ctx, decisionLine(msg));
    }
    expect(created).toEqual(['reprise: retried']);
    expect(w.metrics.get('ReportYielded')).toBe(1);
  });
});

describe('recording the outcome of the re-run before', () => {
  const attempt = (runAttempt: number): RunMessage => runMessage({ runAttempt });

  it('an attempt after a re-run by reprise records the outcome once, from its own verdicts', async () => {
    const w = fakeWorld();
    await w.attempts.claim(attempt(1), 'worker-b', 60_000);
    await w.attempts.finalise(attempt(1), 'worker-b', 'retried', 'lost');
    const lostAgain = [jobVerdict(failedJob(), 'infra')];
    await recordOutcome(attempt(2), lostAgain, w.ctx, decisionLine(attempt(2)));
    await recordOutcome(attempt(2), lostAgain, w.ctx, decisionLine(attempt(2)));
    expect(await w.outcomes.get(attempt(2).repository.id, attempt(2).runId, 2)).toMatchObject({
      outcome: 'lost_again',
    });
    expect(w.log.named('re-run outcome')).toHaveLength(1);
    expect((w.events.published as RerunOutcomeEvent[]).map((e) => e.outcome)).toEqual(['lost_again']);
  });

  it('a first attempt, or one after a person’s re-run, records nothing', async () => {
    const w = fakeWorld();
    await recordOutcome(attempt(1), [], w.ctx, decisionLine(attempt(1)));
    await recordOutcome(attempt(2), [], w.ctx, decisionLine(attempt(2)));
    expect(w.outcomes.recorded.size).toBe(0);
    expect(w.events.published).toEqual([]);
  });
});
